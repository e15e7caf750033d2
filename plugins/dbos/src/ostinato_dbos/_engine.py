"""The DBOS durable engine as submitters see it: queue turns, follow them, decide them.

:class:`DbosEngine` talks only to the system database (a ``DBOSClient``), so any process
— a web server, a script, the ``ostinato approve`` command — submits and follows turns
without running any; workers (:class:`~ostinato_dbos.Worker`, :meth:`DbosEngine.worker`)
run them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from ostinato.durable import TurnRequest, TurnStatus, decision_of
from ostinato.errors import DurableTurnError
from ostinato.model import ChatResponse
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_dbos._decisions import DecisionClaims
from ostinato_dbos._settings import DbosSettings
from ostinato_dbos._worker import APP_NAME, Worker

if TYPE_CHECKING:
    from dbos import DBOSClient

    from ostinato.events import LoopEvent
    from ostinato_dbos._reading import LogReader
    from ostinato_dbos._turn_log import EventStore

__all__ = ["DbosEngine", "DbosTurnHandle"]

_STATUSES: Final = {
    "ENQUEUED": TurnStatus.QUEUED,
    "DELAYED": TurnStatus.QUEUED,
    "PENDING": TurnStatus.RUNNING,
    "SUCCESS": TurnStatus.SUCCEEDED,
    "ERROR": TurnStatus.FAILED,
    "MAX_RECOVERY_ATTEMPTS_EXCEEDED": TurnStatus.FAILED,
    "CANCELLED": TurnStatus.CANCELLED,
}
_DONE: Final = (TurnStatus.SUCCEEDED, TurnStatus.FAILED, TurnStatus.CANCELLED)


class DbosEngine:
    """Durable turns on DBOS (:class:`~ostinato.durable.DurableEngine`).

    Args:
        settings: the plugin's settings (default: read from the environment).
        poll_seconds: how often :meth:`DbosTurnHandle.result` looks at the turn.
        event_poll_seconds: how often a reader of a turn's events looks for new ones.
    """

    def __init__(
        self,
        settings: DbosSettings | None = None,
        *,
        poll_seconds: float = 0.2,
        event_poll_seconds: float = 0.02,
    ) -> None:
        self.settings = settings if settings is not None else DbosSettings()
        self.poll_seconds = poll_seconds
        self.event_poll_seconds = event_poll_seconds
        self._client: DBOSClient | None = None
        self._store: EventStore | None = None
        self._claims: DecisionClaims | None = None

    @property
    def client(self) -> DBOSClient:
        """The DBOS client of the system database, opened on first use (so that an engine
        that only starts a :meth:`worker` never opens one)."""
        if self._client is None:
            from dbos import DBOS, DBOSClient

            url = self.settings.system_database_url()
            DBOS.migrate(url)  # a fresh SQLite file (or database) works before any worker ran
            self._client = DBOSClient(system_database_url=url, application_name=APP_NAME)
        return self._client

    @property
    def store(self) -> EventStore:
        """The turns' event logs (the table in the system database), opened on first use."""
        if self._store is None:
            from ostinato_dbos._turn_log import EventStore

            self.client  # noqa: B018  # the database exists (migrated) first
            self._store = EventStore(self.settings.system_database_url())
        return self._store

    def purge_events(self, older_than_seconds: float | None = None) -> list[str]:
        """Forget the events of the turns that are over and wrote none for
        ``older_than_seconds`` (default: the ``events_retention_seconds`` setting); a
        reader of one then gets an ``expired`` :class:`~ostinato.errors.TurnLogError`.
        Returns their ids."""
        if older_than_seconds is None:
            older_than_seconds = self.settings.events_retention_seconds
        cutoff = int((time.time() - older_than_seconds) * 1000)
        purged = []
        for turn_id in self.store.quiet_since(cutoff):
            if DbosTurnHandle(self, turn_id)._raw_status() in _TERMINAL:
                self.store.purge(turn_id)
                purged.append(turn_id)
        return purged

    @property
    def claims(self) -> DecisionClaims:
        """The table that lets each pending round be decided once (opened on first use)."""
        if self._claims is None:
            url = self.settings.system_database_url()
            _ = self.client  # the system database exists first
            self._claims = DecisionClaims(url)
        return self._claims

    def worker(
        self,
        *,
        concurrency: int | None = None,
        executor_id: str | None = None,
        poll_seconds: float = 1.0,
    ) -> Worker:
        """A :class:`~ostinato_dbos.Worker` (not started) on this engine's settings, with
        ``concurrency`` (``worker_concurrency``) and ``executor_id`` over them."""
        changes: dict[str, object] = {}
        if concurrency is not None:
            changes["worker_concurrency"] = concurrency
        if executor_id:
            changes["executor_id"] = executor_id
        settings = self.settings
        if changes:
            settings = DbosSettings(**{**dict(settings), **changes})
        return Worker(settings, poll_seconds=poll_seconds)

    def turn_ids(self, prefix: str, *, newest: int | None = None) -> list[str]:
        """The ids of the durable turns starting with ``prefix``, oldest first (by
        creation); ``newest``: only that many, those created last (one query)."""
        from ostinato_dbos._listing import turn_ids

        return turn_ids(self.client, prefix, newest)

    def submit(
        self,
        request: TurnRequest,
        *,
        turn_id: str | None = None,
        after: str | None = None,
        exclusive: bool = False,
    ) -> DbosTurnHandle:
        """Queue ``request`` for a worker; the same ``turn_id`` twice is one turn.

        ``exclusive``: the id must be new — of processes submitting the same id at once,
        one queues the turn and the others get :class:`~ostinato.errors.DurableTurnError`
        (status ``"exists"``). ``after``: the id of a turn this one waits for, inside
        its workflow, before it runs (it runs once that one has ended, however), so the
        wait outlives any process (an unknown ``after`` raises ``DurableTurnError``).
        """
        from dbos._error import DBOSWorkflowIDInUseError

        from ostinato_dbos._workflow import WORKFLOW_NAME

        if after is not None:
            DbosTurnHandle(self, after)._raw_status()  # an unknown turn: DurableTurnError
        turn_id = turn_id or str(uuid.uuid4())
        options: Any = {
            "workflow_name": WORKFLOW_NAME,
            "queue_name": self.settings.queue,
            "workflow_id": turn_id,
            "app_version": self.settings.app_version,
        }
        if exclusive:
            options["workflow_id_reuse_policy"] = "reject"
        args = (request.to_json(),) if after is None else (request.to_json(), after)
        try:
            self.client.enqueue(options, *args)
        except DBOSWorkflowIDInUseError:
            message = f"a durable turn has the id {turn_id!r} already"
            raise DurableTurnError(message, turn_id=turn_id, status="exists") from None
        return DbosTurnHandle(self, turn_id)

    def turn(self, turn_id: str) -> DbosTurnHandle:
        """The handle of the turn ``turn_id``."""
        return DbosTurnHandle(self, turn_id)

    def waiting(self) -> list[str]:
        """The ids of the turns waiting for decisions."""
        from ostinato_dbos._workflow import WORKFLOW_NAME

        running = self.client.list_workflows(
            status="PENDING", name=WORKFLOW_NAME, load_input=False, load_output=False
        )
        return [t.workflow_id for t in running if self.turn(t.workflow_id).pending() is not None]

    def close(self) -> None:
        """Release the database connections."""
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._claims is not None:
            self._claims.close()
            self._claims = None
        if self._client is not None:
            self._client.destroy()
            self._client = None

    def __enter__(self) -> DbosEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DbosTurnHandle:
    """A durable turn on DBOS (:class:`~ostinato.durable.TurnHandle`)."""

    __slots__ = ("_engine", "_id")

    def __init__(self, engine: DbosEngine, turn_id: str) -> None:
        self._engine = engine
        self._id = turn_id

    @property
    def id(self) -> str:
        """The turn's id (its DBOS workflow id)."""
        return self._id

    def _raw_status(self) -> str:
        from dbos._error import DBOSException

        try:
            status: str = self._engine.client.retrieve_workflow(self._id).get_status().status
        except DBOSException as error:
            raise self._unknown(error) from error
        return status

    @property
    def status(self) -> TurnStatus:
        """Its status now."""
        status = _STATUSES.get(self._raw_status(), TurnStatus.RUNNING)
        # A waiting turn handed back to the queue (its worker stopped) still waits.
        if status in (TurnStatus.RUNNING, TurnStatus.QUEUED) and self.pending() is not None:
            return TurnStatus.WAITING_FOR_APPROVAL
        return status

    def events(self, after: int = 0, timeout: float | None = None) -> Iterator[LoopEvent]:
        """The turn's loop events after position ``after`` (0: from its first), each
        once, in order, as they are written (its worker writes each as it is emitted;
        polled every ``event_poll_seconds``), until the turn ends; a turn cancelled
        through DBOS ends with a cancelled ``ToolFinished`` for each call left unfinished
        and ``LoopEnded(cancelled)``.

        Raises:
            DurableTurnError: no turn has this id.
            TurnLogError: ``after`` is past the log's end, or older than its retention.
            TimeoutError: no event came within ``timeout`` seconds of the previous one.
        """
        return self._reader(after).read(self._engine.event_poll_seconds, timeout)

    def aevents(self, after: int = 0) -> AsyncIterator[LoopEvent]:
        """Async twin of :meth:`events` (bound the wait with ``asyncio.timeout``)."""
        return self._reader(after).aread(self._engine.event_poll_seconds)

    def _reader(self, after: int) -> LogReader:
        from ostinato_dbos._reading import LogReader

        return LogReader(self._engine.store, self._id, after, self._raw_status, _TERMINAL)

    def _unknown(self, error: Exception) -> DurableTurnError:
        return DurableTurnError(
            f"no durable turn has the id {self._id!r}",  # DBOS's own text stays in the cause
            turn_id=self._id,
            status="unknown",
        )

    def pending(self) -> PendingToolCalls | None:
        """The calls the turn waits for a decision on, or ``None``."""
        from ostinato_dbos._workflow import PENDING_EVENT

        value = self._engine.client.get_event(self._id, PENDING_EVENT, timeout_seconds=0)
        return PendingToolCalls.from_json(value) if value else None

    def wait_for_pending(self, timeout: float) -> PendingToolCalls | None:
        """Wait up to ``timeout`` seconds until the turn waits for decisions; its pending
        calls, or ``None`` if it did not stop for any in that time (looked at every
        ``poll_seconds``)."""
        deadline = time.monotonic() + timeout
        while (pending := self.pending()) is None and time.monotonic() < deadline:
            time.sleep(min(self._engine.poll_seconds, max(0.0, deadline - time.monotonic())))
        return pending

    def decide(self, decisions: Mapping[str, ApprovalDecision | bool]) -> None:
        """Send one decision per waiting call id; the turn resumes on a worker."""
        from ostinato_dbos._workflow import DECISIONS_TOPIC

        pending = self.pending()
        if pending is None and self._engine.claims.decided(self._id):
            raise self._decided_already()
        if pending is None:
            raise DurableTurnError(
                f"the durable turn {self._id!r} waits for no decision (status {self.status.value})",
                turn_id=self._id,
                status=self.status.value,
            )
        checked = {
            str(call_id): decision_of(call_id, decision) for call_id, decision in decisions.items()
        }
        pending.check_resumable(checked, None)
        message = json.dumps({k: d.to_dict() for k, d in checked.items()})
        claims = self._engine.claims
        # What is waited for, as a number: a turn may wait more than once in a round (an
        # approval, then a call a crash left in doubt, or the same call in doubt again),
        # and each wait is decided once.
        wait = int(hashlib.sha256(pending.to_json().encode()).hexdigest()[:12], 16)
        if not claims.claim(self._id, wait):
            raise self._decided_already()
        # One idempotency key per wait: a retried send is one message.
        key = f"{self._id}/{wait}/decisions"
        try:
            self._engine.client.send(self._id, message, DECISIONS_TOPIC, idempotency_key=key)
        except BaseException:
            claims.release(self._id, wait)
            raise

    def _decided_already(self) -> DurableTurnError:
        return DurableTurnError(
            f"the calls the durable turn {self._id!r} waited for were decided already (by "
            "another process or request); a second decision is refused — follow the turn "
            "instead",
            turn_id=self._id,
            status="already_decided",
        )

    def steer(self, message: str) -> None:
        """Add a user message to the running turn: it joins the conversation at the
        turn's next round boundary (recorded, so a replay takes it at the same round);
        one that comes after the last boundary runs in the turn's follow-up
        (``ostinato.durable.follow_up_id``), submitted by the turn itself.

        Raises:
            DurableTurnError: the turn ended before it read the message (or no turn has
                this id); the turn is ending and did not say in time whether it read it
                (``status`` ``"closing"``).
        """
        from ostinato_dbos._steering import send_steering

        if not isinstance(message, str) or not message.strip():
            raise ValueError("a steering message must be non-blank text")
        send_steering(self._engine, self._id, message)

    def cancel(self) -> None:
        """Cancel the turn (from any process): readers of its events get a cancelled
        ``ToolFinished`` for each call left unfinished and ``LoopEnded(cancelled)``; a turn
        that has ended stays as it is."""
        if self._raw_status() not in _TERMINAL:
            self._engine.client.cancel_workflow(self._id)

    def _answer(self, status: str) -> ChatResponse:
        if status == "SUCCESS":
            output: str = self._engine.client.retrieve_workflow(self._id).get_result()
            return ChatResponse.from_dict(json.loads(output))
        detail = ""
        if _STATUSES.get(status) is TurnStatus.FAILED:
            error = self._engine.client.retrieve_workflow(self._id).get_status().error
            detail = f": {error}" if error is not None else ""
        turn_status = _STATUSES.get(status, TurnStatus.FAILED)
        raise DurableTurnError(
            f"the durable turn {self._id!r} ended {turn_status.value}{detail}",
            turn_id=self._id,
            status=turn_status.value,
        )

    def result(self, timeout: float | None = None) -> ChatResponse:
        """Wait for the answer (polling the system database)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (status := self._raw_status()) not in _TERMINAL:
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"the durable turn {self._id!r} is still {status}")
            time.sleep(self._engine.poll_seconds)
        return self._answer(status)

    async def aresult(self) -> ChatResponse:
        """Async twin of :meth:`result` (it waits in a thread)."""
        return await asyncio.to_thread(self.result)

    def __repr__(self) -> str:
        return f"<DbosTurnHandle {self._id}>"


_TERMINAL: Final = frozenset(k for k, v in _STATUSES.items() if v in _DONE)
