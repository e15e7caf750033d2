"""The Temporal durable engine as submitters see it: start turns, follow them, decide them.

:class:`TemporalEngine` talks only to the Temporal service (a client connected on first
use), so any process — a web server, a script, the ``ostinato approve`` command — submits
and follows turns without running any; workers (:class:`~ostinato_temporal.Worker`,
:meth:`TemporalEngine.worker`) run them. The SDK's client is async: the sync methods run
it on ostinato's private event loop, the async ones await it there.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ostinato.durable import TurnRequest
from ostinato_temporal._connection import WORKFLOW_NAME, connect
from ostinato_temporal._handle import TemporalTurnHandle
from ostinato_temporal._settings import TemporalSettings
from ostinato_temporal._worker import Worker

if TYPE_CHECKING:
    from temporalio.client import Client

__all__ = ["TemporalEngine", "TemporalTurnHandle"]

T = TypeVar("T")


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

    def submit(
        self,
        request: TurnRequest,
        *,
        turn_id: str | None = None,
        after: str | None = None,
        exclusive: bool = False,
    ) -> TemporalTurnHandle:
        """Start the turn's workflow; the same ``turn_id`` twice is one turn.

        ``exclusive``: the id must be new — of processes submitting the same id at once,
        the service lets one create the turn and the others get
        :class:`~ostinato.errors.DurableTurnError` (status ``"exists"``), as does an id
        an ended turn had. ``after``: the id of a turn this one waits for, inside its
        workflow, before it runs (it runs once that one has ended, however it ended), so
        the wait outlives any process.

        Raises:
            DurableTurnError: ``exclusive`` and the id is taken (``"exists"``), or no
                turn has the id ``after`` (``"unknown"``).
        """
        if after is not None:
            self.turn(after).status  # noqa: B018  # an unknown turn: DurableTurnError
        turn_id = turn_id or str(uuid.uuid4())
        self._sync(lambda: self._start(request, turn_id, after, exclusive))
        return TemporalTurnHandle(self, turn_id)

    async def _start(
        self, request: TurnRequest, turn_id: str, after: str | None, exclusive: bool
    ) -> None:
        from temporalio.exceptions import WorkflowAlreadyStartedError

        from ostinato_temporal._starting import exists_error, start_turn

        client = await self.client()
        try:
            await start_turn(
                client,
                request,
                turn_id,
                task_queue=self.settings.task_queue,
                options=self._options(),
                after=after,
                exclusive=exclusive,
            )
        except WorkflowAlreadyStartedError:
            raise exists_error(turn_id) from None

    def turn(self, turn_id: str) -> TemporalTurnHandle:
        """The handle of the turn ``turn_id``."""
        return TemporalTurnHandle(self, turn_id)

    def turn_ids(self, prefix: str) -> list[str]:
        """The ids of the durable turns starting with ``prefix``, oldest first.

        The service lists workflows from its visibility store, which may lag a moment
        behind a workflow just started; the turns that continue the newest listed id's
        series (:func:`~ostinato.durable.follow_up_id`; ``<prefix>1`` first when none is
        listed and ``prefix`` ends with ``:``) are looked up directly and added, so a
        numbered series (``turn:<conversation>:<n>``) is complete."""
        quoted = prefix.replace("\\", "\\\\").replace("'", "\\'")
        query = f"WorkflowType = '{WORKFLOW_NAME}' AND WorkflowId STARTS_WITH '{quoted}'"
        return self._sync(lambda: self._series(prefix, query))

    async def _series(self, prefix: str, query: str) -> list[str]:
        from temporalio.service import RPCError, RPCStatusCode

        from ostinato.durable import follow_up_id

        found = [turn_id for turn_id, _ in await self._list(query)]
        if found:
            candidate = follow_up_id(found[-1])
        elif prefix.endswith(":"):
            candidate = f"{prefix}1"
        else:
            return found
        client = await self.client()
        while candidate not in found:
            try:
                await client.get_workflow_handle(candidate).describe()
            except RPCError as error:
                if error.status is RPCStatusCode.NOT_FOUND:
                    break
                raise
            found.append(candidate)
            candidate = follow_up_id(candidate)
        return found

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
