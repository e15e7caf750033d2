"""The Temporal durable engine as submitters see it: start turns, follow them, decide them.

:class:`TemporalEngine` talks only to the Temporal service (a client connected on first
use), so any process — a web server, a script, the ``ostinato approve`` command — submits
and follows turns without running any; workers (:class:`~ostinato_temporal.Worker`,
:meth:`TemporalEngine.worker`) run them. The SDK's client is async: the sync methods run
it on ostinato's private event loop, the async ones await it there.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeVar

from ostinato.durable import TurnRequest, TurnStatus, decision_of
from ostinato.errors import DurableTurnError
from ostinato.model import ChatResponse
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_temporal._connection import DECIDE_SIGNAL, PENDING_MEMO, WORKFLOW_NAME, connect
from ostinato_temporal._settings import TemporalSettings
from ostinato_temporal._worker import Worker

if TYPE_CHECKING:
    from temporalio.client import Client, WorkflowHandle

    from ostinato.events import LoopEvent

__all__ = ["TemporalEngine", "TemporalTurnHandle"]

T = TypeVar("T")

_STATUSES: Final = {
    "RUNNING": TurnStatus.RUNNING,
    "COMPLETED": TurnStatus.SUCCEEDED,
    "FAILED": TurnStatus.FAILED,
    "TERMINATED": TurnStatus.FAILED,
    "TIMED_OUT": TurnStatus.FAILED,
    "CANCELED": TurnStatus.CANCELLED,
}


class TemporalEngine:
    """Durable turns on Temporal (:class:`~ostinato.durable.DurableEngine`).

    Args:
        settings: the plugin's settings (default: read from the environment).
    """

    def __init__(self, settings: TemporalSettings | None = None) -> None:
        self.settings = settings if settings is not None else TemporalSettings()
        self._client: Client | None = None

    def _sync(self, make: Callable[[], Awaitable[T]]) -> T:
        from ostinato.runtime import run_sync

        return run_sync(make)

    async def _async(self, make: Callable[[], Awaitable[T]]) -> T:
        from ostinato.runtime import get_private_loop

        async def run() -> T:
            return await make()

        future = asyncio.run_coroutine_threadsafe(run(), get_private_loop())
        return await asyncio.wrap_future(future)

    async def client(self) -> Client:
        """The client of the service, connected on first use (on the private loop)."""
        if self._client is None:
            self._client = await connect(self.settings)
        return self._client

    def worker(
        self,
        *,
        concurrency: int | None = None,
        executor_id: str | None = None,
        poll_seconds: float = 1.0,
    ) -> Worker:
        """A :class:`~ostinato_temporal.Worker` (not started) on this engine's settings,
        with ``concurrency`` (``worker_concurrency``) and ``executor_id`` (its identity)
        over them; ``poll_seconds`` is unused (a Temporal worker long-polls)."""
        changes: dict[str, object] = {}
        if concurrency is not None:
            changes["worker_concurrency"] = concurrency
        if executor_id:
            changes["identity"] = executor_id
        settings = self.settings
        if changes:
            settings = TemporalSettings(**{**dict(settings), **changes})
        return Worker(settings)

    def _options(self) -> dict[str, float]:
        s = self.settings
        return {
            "unit_timeout_seconds": s.unit_timeout_seconds,
            "heartbeat_seconds": s.heartbeat_seconds,
            "approval_timeout_seconds": s.approval_timeout_seconds,
        }

    def submit(self, request: TurnRequest, *, turn_id: str | None = None) -> TemporalTurnHandle:
        """Start the turn's workflow; the same ``turn_id`` twice is one turn."""
        turn_id = turn_id or str(uuid.uuid4())
        self._sync(lambda: self._start(request, turn_id))
        return TemporalTurnHandle(self, turn_id)

    async def _start(self, request: TurnRequest, turn_id: str) -> None:
        from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
        from temporalio.exceptions import WorkflowAlreadyStartedError

        client = await self.client()
        with contextlib.suppress(WorkflowAlreadyStartedError):  # an ended turn of that id
            await client.start_workflow(
                WORKFLOW_NAME,
                {"request": request.to_dict(), "options": self._options()},
                id=turn_id,
                task_queue=self.settings.task_queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                memo={PENDING_MEMO: ""},
            )

    def turn(self, turn_id: str) -> TemporalTurnHandle:
        """The handle of the turn ``turn_id``."""
        return TemporalTurnHandle(self, turn_id)

    def turn_ids(self, prefix: str) -> list[str]:
        """The ids of the durable turns starting with ``prefix``, oldest first."""
        quoted = prefix.replace("\\", "\\\\").replace("'", "\\'")
        query = f"WorkflowType = '{WORKFLOW_NAME}' AND WorkflowId STARTS_WITH '{quoted}'"
        return [turn_id for turn_id, _ in self._sync(lambda: self._list(query))]

    async def _list(self, query: str) -> list[tuple[str, Any]]:
        client = await self.client()
        found = [w async for w in client.list_workflows(query)]
        found.sort(key=lambda w: w.start_time)
        return [(w.id, w) for w in found]

    def waiting(self) -> list[str]:
        """The ids of the turns waiting for decisions."""
        query = f"WorkflowType = '{WORKFLOW_NAME}' AND ExecutionStatus = 'Running'"
        running = self._sync(lambda: self._list(query))
        return [turn_id for turn_id, _ in running if self.turn(turn_id).pending() is not None]

    def close(self) -> None:
        """Forget the client (the SDK's connection closes with it)."""
        self._client = None

    def __enter__(self) -> TemporalEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TemporalTurnHandle:
    """A durable turn on Temporal (:class:`~ostinato.durable.TurnHandle`)."""

    __slots__ = ("_engine", "_id")

    def __init__(self, engine: TemporalEngine, turn_id: str) -> None:
        self._engine = engine
        self._id = turn_id

    @property
    def id(self) -> str:
        """The turn's id (its workflow id)."""
        return self._id

    async def _handle(self) -> WorkflowHandle[Any, Any]:
        return (await self._engine.client()).get_workflow_handle(self._id)

    async def _describe(self) -> tuple[str, Mapping[str, Any]]:
        from temporalio.service import RPCError, RPCStatusCode

        try:
            description = await (await self._handle()).describe()
        except RPCError as error:
            if error.status is RPCStatusCode.NOT_FOUND:
                raise self._unknown() from None
            raise
        status = description.status.name if description.status is not None else "RUNNING"
        return status, await description.memo()

    def _unknown(self) -> DurableTurnError:
        return DurableTurnError(
            f"no durable turn has the id {self._id!r}", turn_id=self._id, status="unknown"
        )

    @property
    def status(self) -> TurnStatus:
        """Its status now."""
        status, memo = self._engine._sync(self._describe)
        turn_status = _STATUSES.get(status, TurnStatus.RUNNING)
        if turn_status is TurnStatus.RUNNING and memo.get(PENDING_MEMO):
            return TurnStatus.WAITING_FOR_APPROVAL
        return turn_status

    def pending(self) -> PendingToolCalls | None:
        """The calls the turn waits for a decision on, or ``None`` (read from its memo:
        no worker needs to run)."""
        status, memo = self._engine._sync(self._describe)
        value = memo.get(PENDING_MEMO) if status == "RUNNING" else None
        return PendingToolCalls.from_json(value) if value else None

    def decide(self, decisions: Mapping[str, ApprovalDecision | bool]) -> None:
        """Send one decision per waiting call id (a signal: kept by the service until a
        worker runs the turn); the turn resumes on a worker."""
        pending = self.pending()
        if pending is None:
            status = self.status.value
            raise DurableTurnError(
                f"the durable turn {self._id!r} waits for no decision (status {status})",
                turn_id=self._id,
                status=status,
            )
        checked = {str(call_id): decision_of(call_id, d) for call_id, d in decisions.items()}
        pending.check_resumable(checked, None)
        message = {
            "round": pending.rounds,
            "decisions": {k: d.to_dict() for k, d in checked.items()},
        }

        async def send() -> None:
            await (await self._handle()).signal(DECIDE_SIGNAL, message)

        self._engine._sync(send)

    async def _result(self) -> ChatResponse:
        from temporalio.client import WorkflowFailureError
        from temporalio.exceptions import ApplicationError, CancelledError

        handle = await self._handle()
        try:
            output = await handle.result()
        except WorkflowFailureError as error:
            cause = error.cause
            status = (
                TurnStatus.CANCELLED if isinstance(cause, CancelledError) else TurnStatus.FAILED
            )
            detail = f": {cause.message}" if isinstance(cause, ApplicationError) else ""
            raise DurableTurnError(
                f"the durable turn {self._id!r} ended {status.value}{detail}",
                turn_id=self._id,
                status=status.value,
            ) from None
        except Exception as error:
            from temporalio.service import RPCError, RPCStatusCode

            if isinstance(error, RPCError) and error.status is RPCStatusCode.NOT_FOUND:
                raise self._unknown() from None
            raise
        return ChatResponse.from_dict(json.loads(output))

    def result(self, timeout: float | None = None) -> ChatResponse:
        """Wait for the answer (a long poll of the service)."""

        async def wait() -> ChatResponse:
            try:
                async with asyncio.timeout(timeout):
                    return await self._result()
            except TimeoutError:
                raise TimeoutError(
                    f"the durable turn {self._id!r} did not end within {timeout} s"
                ) from None

        return self._engine._sync(wait)

    async def aresult(self) -> ChatResponse:
        """Async twin of :meth:`result`."""
        return await self._engine._async(self._result)

    def events(self, after: int = 0, timeout: float | None = None) -> Iterator[LoopEvent]:
        """The turn's loop events after position ``after`` (0: from its first), each
        once, in order, until the turn ends, read from its history (see
        :mod:`ostinato_temporal._events`): an event is readable once the workflow task
        that told it completed; a model round's text comes as one piece when the round
        ends.

        Raises:
            DurableTurnError: no turn has this id (or its history is past retention).
            TurnLogError: ``after`` is past the end of the log.
            TimeoutError: no event came within ``timeout`` seconds of the previous one.
        """
        from ostinato.runtime import iterate_sync

        _check_position(after)
        stream = iterate_sync(lambda: self._events(after, seconds=timeout))
        try:
            yield from stream
        finally:
            stream.close()

    async def _events(
        self, after: int, *, seconds: float | None
    ) -> AsyncGenerator[LoopEvent, None]:
        from ostinato_temporal._events import read_log

        client = await self._engine.client()
        async for event in read_log(client, self._id, after, seconds, self._unknown):
            yield event

    async def aevents(self, after: int = 0) -> AsyncIterator[LoopEvent]:
        """Async twin of :meth:`events` (bound the wait with ``asyncio.timeout``)."""
        from ostinato.runtime import get_private_loop

        _check_position(after)
        loop = get_private_loop()
        events = self._events(after, seconds=None)
        try:
            while True:
                step = asyncio.run_coroutine_threadsafe(_next(events), loop)
                found, event = await asyncio.wrap_future(step)
                if not found:
                    return
                yield event
        finally:
            asyncio.run_coroutine_threadsafe(events.aclose(), loop)

    def wait_for_pending(
        self, timeout: float, poll_seconds: float = 0.1
    ) -> PendingToolCalls | None:
        """Wait up to ``timeout`` seconds until the turn waits for decisions; its pending
        calls, or ``None``."""
        import time

        deadline = time.monotonic() + timeout
        while (pending := self.pending()) is None and time.monotonic() < deadline:
            time.sleep(poll_seconds)
        return pending

    def cancel(self) -> None:
        """Ask the service to cancel the turn (its workflow)."""

        async def cancel() -> None:
            await (await self._handle()).cancel()

        self._engine._sync(cancel)

    def __repr__(self) -> str:
        return f"<TemporalTurnHandle {self._id}>"


def _check_position(after: object) -> None:
    if isinstance(after, bool) or not isinstance(after, int) or after < 0:
        raise ValueError(f"after must be a position (an int >= 0), got {after!r}")


async def _next(events: AsyncIterator[LoopEvent]) -> tuple[bool, Any]:
    try:
        return True, await anext(events)
    except StopAsyncIteration:
        return False, None
