"""A durable turn on Temporal, as any process that knows its id sees it: its status, answer,
events and pending calls, read from the service; decisions and steered messages sent to it
as signals (kept by the service until a worker runs the turn).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from ostinato.durable import TurnStatus, decision_of
from ostinato.errors import DurableTurnError
from ostinato.model import ChatResponse
from ostinato.tools import ApprovalDecision, PendingToolCalls
from ostinato_temporal._connection import DECIDE_SIGNAL, PENDING_MEMO, STEER_SIGNAL

if TYPE_CHECKING:
    from temporalio.client import WorkflowHandle

    from ostinato.events import LoopEvent
    from ostinato_temporal._engine import TemporalEngine

__all__ = ["STATUSES", "TemporalTurnHandle"]

#: The turn status of each workflow execution status.
STATUSES: Final = {
    "RUNNING": TurnStatus.RUNNING,
    "COMPLETED": TurnStatus.SUCCEEDED,
    "FAILED": TurnStatus.FAILED,
    "TERMINATED": TurnStatus.FAILED,
    "TIMED_OUT": TurnStatus.FAILED,
    "CANCELED": TurnStatus.CANCELLED,
}


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
        turn_status = STATUSES.get(status, TurnStatus.RUNNING)
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

    def steer(self, message: str) -> None:
        """Add a user message to the running turn (a signal: in the turn's history once
        this returns, so a replay takes it at the same round): it joins the conversation
        at the turn's next round boundary, or, come after the last one, runs in the
        turn's follow-up (:func:`~ostinato.durable.follow_up_id`). The service refuses
        a signal to an ended workflow, and keeps one that arrives while the turn
        completes from closing it: a message sent is never dropped.

        Raises:
            ValueError: ``message`` is blank.
            DurableTurnError: the turn has ended (``status`` the turn's: submit the
                message as a turn of its own), or no turn has this id.
        """
        if not isinstance(message, str) or not message.strip():
            raise ValueError("a steering message must be non-blank text")
        payload = {"texts": [message], "id": None}

        async def send() -> bool:
            from temporalio.service import RPCError, RPCStatusCode

            try:
                await (await self._handle()).signal(STEER_SIGNAL, payload)
            except RPCError as error:
                if error.status is RPCStatusCode.NOT_FOUND:
                    return False  # ended (or unknown: the status below says which)
                raise
            return True

        if not self._engine._sync(send):
            status = self.status.value
            raise DurableTurnError(
                f"the durable turn {self._id!r} has ended ({status}); nothing can join it "
                "— submit the message as a new turn instead",
                turn_id=self._id,
                status=status,
            )

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
