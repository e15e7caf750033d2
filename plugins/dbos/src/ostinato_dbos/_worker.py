"""A worker process: runs the durable turns it takes from the queue, adopts the turns of
dead workers, and on shutdown finishes or hands back its own.

:class:`Worker` is what ``ostinato worker`` runs; a program may start one itself (one per
process: DBOS is a process-wide singleton). Its turns run on DBOS's event loop, on one
auto-configured client built from the worker's environment.

Fencing: a worker holds its turns on a *lease*, ``dead_after_seconds`` from the start of
its last heartbeat that found its row still there (another worker adopts them only once
that row is older than ``dead_after_seconds``, and a claim deletes the row). Before each
unit runs, the worker checks its lease; an expired lease is renewed by a beat, and a
beat that finds the row claimed (the worker was presumed dead: stalled, frozen,
starved) ends the process at once (exit status :data:`FENCED_EXIT_STATUS`), like a
crash: nothing more of its turns is recorded or run here. So no unit starts on a worker
after another one could have adopted its turns; a unit started before that may still be
running when the adopter runs it again (the unit in flight, at most twice).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from os import _exit as exit_at_once  # no cleanup, no flush: like a crash
from typing import TYPE_CHECKING, Any, Final, NoReturn

from ostinato_dbos._settings import DbosSettings

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ostinato.config import AutoConfiguration
    from ostinato.durable import TurnRunner
    from ostinato.events import EventListener
    from ostinato_dbos._heartbeats import Heartbeats
    from ostinato_dbos._identity import WorkerIdentity
    from ostinato_dbos._turn_log import EventWriter

__all__ = ["APP_NAME", "FENCED_EXIT_STATUS", "Worker"]

#: The DBOS application name of every worker and submitter.
APP_NAME: Final = "ostinato"
#: The exit status of a worker that found its turns adopted by another (it was presumed
#: dead): it stops at once, before running another unit of them.
FENCED_EXIT_STATUS: Final = 75

_log = logging.getLogger("ostinato_dbos")


class Worker:
    """One worker: :meth:`start`, then :meth:`stop` (or :meth:`run` until a signal).

    Args:
        settings: the plugin's settings (default: read from the environment).
        container: the auto-configuration its turns' client is built from (default:
            from the environment, as every ``ostinato`` command builds it).
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
        #: This worker's executor id: the setting's, else (once started) the stable id of
        #: :mod:`ostinato_dbos._identity`, ``<host>-<project>-<slot>``.
        self.executor_id = self.settings.executor_id or ""
        self._identity: WorkerIdentity | None = None
        self._container = container
        self._listeners = tuple(listeners)
        self._poll_seconds = poll_seconds
        self._url = ""
        self._heartbeats: Heartbeats | None = None
        self._lease_until = 0.0
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._uninstall: Any = None
        self._writer: EventWriter | None = None
        self._purged_at = time.monotonic()  # the first purge an hour after the start

    @property
    def queue(self) -> str:
        """The queue it takes turns from (the ``queue`` setting)."""
        return self.settings.queue

    def start(self) -> None:
        """Build the turns' client (so that a worker without a usable model refuses to
        start), take an executor id, launch DBOS with it, register the queue, and start
        the heartbeat (which also adopts dead workers' turns).

        Raises:
            ConfigurationError: the client cannot be built (no model, an unknown
                provider, a missing key...), or its unit stack lacks the ``dbos`` wrapper
                (a container built without this plugin): the worker would fail every turn.
        """
        from ostinato.cli import command_container
        from ostinato.durable import TurnRunner
        from ostinato.errors import ConfigurationError
        from ostinato_dbos._unit_wrapper import WRAPPER_NAME

        # Without a container: the client every `ostinato` command builds (memory in
        # SQLite unless set otherwise: a turn adopted elsewhere finds its conversation).
        container = self._container if self._container is not None else command_container()
        runner = TurnRunner(container, listeners=self._listeners)
        units = runner.client.units  # built now: a bad setting fails the start, not a turn
        if not any(w.name == WRAPPER_NAME for w in units.wrappers):
            raise ConfigurationError(
                f"the worker's client has no {WRAPPER_NAME!r} unit wrapper: its turns "
                f"would not be recorded\n  its unit stack: {units!r}\n"
                "fix: build the worker's container with the DBOS plugin among its plugins"
            )
        self._launch(runner)

    def _launch(self, runner: TurnRunner) -> None:
        from dbos import DBOS

        from ostinato_dbos._heartbeats import Heartbeats
        from ostinato_dbos._identity import claim_identity
        from ostinato_dbos._turn_log import EventStore, EventWriter
        from ostinato_dbos._unit_wrapper import activate
        from ostinato_dbos._workflow import configure_worker

        settings = self.settings
        if not self.executor_id:
            self._identity = claim_identity(settings.state_dir, settings.project)
            self.executor_id = self._identity.executor_id
        self._url = settings.system_database_url()
        DBOS.migrate(self._url)
        self._heartbeats = Heartbeats(self._url, self.executor_id)
        self._writer = EventWriter(EventStore(self._url), self.check_lease)
        began = time.monotonic()
        self._heartbeats.register()
        self._lease_until = began + settings.dead_after_seconds
        configure_worker(
            runner, settings.approval_timeout_seconds, self.check_lease, self._writer, settings
        )
        activate(True)
        self._uninstall = lambda: activate(False)
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
                if not self._renew():
                    self._fenced()
                for dead in heartbeats.claim_dead(self.settings.dead_after_seconds):
                    self.adopt(dead)
                self._purge_now_and_then()
            except Exception:  # a database hiccup: try again at the next beat
                _log.exception("heartbeat of worker %s failed", self.executor_id)

    def _purge_now_and_then(self) -> None:
        """About once an hour, forget the events of turns older than their retention."""
        now = time.monotonic()
        if now - self._purged_at < 3600.0:
            return
        self._purged_at = now
        from ostinato_dbos._engine import DbosEngine

        with DbosEngine(self.settings) as engine:
            engine.purge_events()

    def _renew(self) -> bool:
        """A beat; on success the lease runs ``dead_after_seconds`` from before it."""
        assert self._heartbeats is not None
        began = time.monotonic()
        if not self._heartbeats.beat():
            return False
        self._lease_until = max(self._lease_until, began + self.settings.dead_after_seconds)
        return True

    def check_lease(self) -> None:
        """Called before each unit of a turn runs here: returns when this worker still
        holds its turns (renewing an expired lease), and ends the process when another
        worker claimed them (see the module's docstring)."""
        if time.monotonic() < self._lease_until or self._renew():
            return
        self._fenced()

    def _fenced(self) -> NoReturn:
        _log.error(
            "worker %s was presumed dead (silent for %s s) and its turns were adopted by "
            "another worker: it stops now, before running another unit of them\n"
            "fix: raise OSTINATO_DBOS_DEAD_AFTER_SECONDS well above the longest stall of "
            "this worker (load, pauses), then restart it",
            self.executor_id,
            self.settings.dead_after_seconds,
        )
        logging.shutdown()
        exit_at_once(FENCED_EXIT_STATUS)

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
        if self._writer is not None:
            self._writer.close()
            self._writer.store.close()
        if self._heartbeats is not None:
            self._heartbeats.forget()
            self._heartbeats.close()
        if self._identity is not None:
            self._identity.release()
        return handed
