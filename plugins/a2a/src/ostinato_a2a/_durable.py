"""A2A tasks as durable turns, when ``ostinato serve`` runs turns on a durable engine
(``OSTINATO_SERVE_TURNS=durable``).

A task's id is its durable turn's id, ``turn:<contextId>:a2a-<hex>`` (the form of
``ostinato serve``'s durable turns, so ``/api/turns/<id>`` shows it too): a new task is
submitted to the engine and its workers run it; the server process follows the turn's
log and tells the task what it says (:class:`DurableTurnExecutor`), as for a turn in
process. A task that waits for approval waits in the engine: the next message, to any
server process, decides it there and follows the turn on. Cancelling a task followed by
this process cancels its turn.

Nothing of a task is lost with a server process: :class:`EngineTaskStore` rebuilds a
task this process does not hold from its turn (its state, the calls it waits for, its
answer), so ``GetTask`` and ``SubscribeToTask`` on a new process find it;
:class:`DurableRequestHandler` serves a subscription to a task no process here follows
by following its turn's log from its start (the answer is streamed again from its first
chunk, then sent whole as always).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, cast

from a2a.server.agent_execution import RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.id_generator import IDGenerator, IDGeneratorContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskStore, TaskUpdater
from a2a.types import (
    ListTasksRequest,
    ListTasksResponse,
    Part,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)

from ostinato.durable import DurableEngine, TurnHandle, TurnRequest, TurnStatus
from ostinato.errors import DurableTurnError, ResumeError
from ostinato.events import ApprovalRequired, LoopEnded, LoopEvent
from ostinato.tools import PendingToolCalls
from ostinato_a2a._decisions import DecisionError, describe_calls, read_decisions
from ostinato_a2a._executor import ANSWER_ARTIFACT, PENDING_METADATA_KEY, TurnExecutor

__all__ = [
    "DurableRequestHandler",
    "DurableTurnExecutor",
    "EngineTaskStore",
    "TurnContextIds",
    "TurnTaskIds",
    "conversation_of",
    "durable_handler",
]

_STATES = {
    TurnStatus.QUEUED: TaskState.TASK_STATE_SUBMITTED,
    TurnStatus.RUNNING: TaskState.TASK_STATE_WORKING,
    TurnStatus.WAITING_FOR_APPROVAL: TaskState.TASK_STATE_INPUT_REQUIRED,
    TurnStatus.SUCCEEDED: TaskState.TASK_STATE_COMPLETED,
    TurnStatus.FAILED: TaskState.TASK_STATE_FAILED,
    TurnStatus.CANCELLED: TaskState.TASK_STATE_CANCELED,
}


def conversation_of(task_id: str) -> str | None:
    """The conversation (``contextId``) of a task id ``turn:<contextId>:a2a-<hex>``."""
    head, _, rest = task_id.partition(":")
    conversation, sep, _ = rest.rpartition(":")
    return conversation if head == "turn" and sep and conversation else None


class TurnTaskIds(IDGenerator):
    """New task ids in the form of a durable turn's id, ``turn:<contextId>:a2a-<hex>``."""

    def generate(self, context: IDGeneratorContext) -> str:
        """A new task id in the context given (a new context when none is)."""
        return f"turn:{context.context_id or uuid.uuid4().hex}:a2a-{uuid.uuid4().hex}"


class TurnContextIds(IDGenerator):
    """New context ids: the one a new task's id names, else a new one."""

    def generate(self, context: IDGeneratorContext) -> str:
        """The context of the task id given, else a new one."""
        return conversation_of(context.task_id or "") or uuid.uuid4().hex


async def _handle(engine: DurableEngine, task_id: str) -> tuple[TurnHandle, TurnStatus] | None:
    if conversation_of(task_id) is None:
        return None
    handle = engine.turn(task_id)
    try:
        status = await asyncio.to_thread(lambda: handle.status)
    except DurableTurnError:
        return None
    return handle, status


async def task_of_turn(engine: DurableEngine, task_id: str) -> Task | None:
    """The task of the durable turn ``task_id`` as its engine has it (``None``: none)."""
    found = await _handle(engine, task_id)
    if found is None:
        return None
    handle, status = found
    task = Task(id=task_id, context_id=conversation_of(task_id) or "")
    task.status.state = _STATES[status]
    if status is TurnStatus.WAITING_FOR_APPROVAL:
        pending = await asyncio.to_thread(handle.pending)
        if pending is not None:
            task.metadata.update({PENDING_METADATA_KEY: {"pending_calls": describe_calls(pending)}})
    elif status is TurnStatus.SUCCEEDED:
        answer = await asyncio.to_thread(handle.result)
        artifact = task.artifacts.add()
        artifact.artifact_id, artifact.name = f"{task_id}-answer", ANSWER_ARTIFACT
        artifact.parts.append(Part(text=answer.text or ""))
    return task


class EngineTaskStore(TaskStore):
    """The tasks this process tells, in memory; any other from its durable turn.

    Args:
        engine: the durable engine the tasks' turns run on.
    """

    def __init__(self, engine: DurableEngine) -> None:
        self.engine = engine
        self._kept = InMemoryTaskStore()

    async def save(self, task: Task, context: ServerCallContext) -> None:
        """Keep ``task`` as this process tells it."""
        await self._kept.save(task, context)

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        """The task as this process has it, else rebuilt from its turn."""
        task = await self._kept.get(task_id, context)
        if task is not None:
            return task
        return await task_of_turn(self.engine, task_id)

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        """The tasks this process holds."""
        return await self._kept.list(params, context)

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        """Forget the task here (its turn stays in the engine)."""
        await self._kept.delete(task_id, context)


async def _after_stop(
    events: AsyncIterator[LoopEvent], pending: PendingToolCalls
) -> AsyncIterator[LoopEvent]:
    """The events after the stop that waited for ``pending``'s calls."""
    waited = {call.id for call in pending.calls}
    stage = 0  # 0: before the stop's ApprovalRequired; 1: before its LoopEnded; 2: after
    async for event in events:
        if stage == 2:
            yield event
        elif stage == 0 and isinstance(event, ApprovalRequired):
            stage = 1 if {call.id for call in event.calls} == waited else 0
        elif stage == 1 and isinstance(event, LoopEnded):
            stage = 2


class DurableTurnExecutor(TurnExecutor):
    """Runs each A2A task as a durable turn (see the module)."""

    following: set[str]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.following = set()

    @property
    def engine(self) -> DurableEngine:
        """The engine the served client's durable turns run on."""
        durable = self.state.durable
        assert durable is not None, "DurableTurnExecutor serves a state with durable turns"
        return durable.engine

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Submit the task's turn, or decide the calls it waits for; follow it on."""
        updater = await self.opened(context, event_queue)
        engine = self.engine
        if context.current_task is not None:
            found = await _handle(engine, updater.task_id)
            pending = None if found is None else await asyncio.to_thread(found[0].pending)
            if found is None or pending is None:
                await updater.reject(
                    updater.new_agent_message(
                        [Part(text="the task waits for no decision; send a new message")]
                    )
                )
                return
            handle = found[0]
            try:
                decisions = read_decisions(context.message, pending)
                await asyncio.to_thread(handle.decide, decisions)
            except (DecisionError, DurableTurnError, ResumeError) as problem:
                await self.ask(updater, pending, f"{problem} ")
                return
            await updater.start_work()
            await self.follow(handle, updater, _after_stop(handle.aevents(0), pending))
            return
        question = context.get_user_input()
        if not question.strip():
            await updater.reject(
                updater.new_agent_message([Part(text="the message holds no text")])
            )
            return
        durable = self.state.durable
        assert durable is not None
        request = TurnRequest(question, conversation_id=updater.context_id, tools=durable.tools)
        handle = await asyncio.to_thread(engine.submit, request, turn_id=updater.task_id)
        await updater.start_work()
        await self.follow(handle, updater, handle.aevents(0))

    async def follow(
        self, handle: TurnHandle, updater: TaskUpdater, events: AsyncIterator[LoopEvent]
    ) -> None:
        """Tell the task what its turn's ``events`` say, until it ends or stops."""
        self.following.add(handle.id)
        try:
            await self.translate(events, updater, "", None)
        finally:
            self.following.discard(handle.id)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Cancel the task's turn on the engine, then the task."""
        found = await _handle(self.engine, context.task_id or "")
        stop = None if found is None else getattr(found[0], "cancel", None)
        if stop is not None:
            await asyncio.to_thread(stop)
        await super().cancel(context, event_queue)


class _Collected:
    """Where a subscription's updater puts the events the subscription yields."""

    def __init__(self) -> None:
        self.items: asyncio.Queue[Any] = asyncio.Queue()

    async def enqueue_event(self, event: Any) -> None:
        await self.items.put(event)


def durable_handler(executor: DurableTurnExecutor, card: Any, **more: Any) -> DurableRequestHandler:
    """The request handler of a server whose tasks are durable turns (``more``: the
    handler's other arguments, push notifications')."""
    from a2a.server.agent_execution import SimpleRequestContextBuilder

    ids = SimpleRequestContextBuilder(
        task_id_generator=TurnTaskIds(), context_id_generator=TurnContextIds()
    )
    return DurableRequestHandler(
        executor,
        task_store=EngineTaskStore(executor.engine),
        agent_card=card,
        request_context_builder=ids,
        **more,
    )


class DurableRequestHandler(DefaultRequestHandler):
    """The ``a2a-sdk``'s request handler, serving a subscription to a task that no
    process here follows from its turn's log (see the module)."""

    def __init__(self, executor: DurableTurnExecutor, **kwargs: Any) -> None:
        super().__init__(agent_executor=executor, **kwargs)
        self.executor = executor

    async def on_subscribe_to_task(
        self, params: SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Any, None]:
        """Tap the task this process follows; else follow its turn's log here."""
        if params.id in self.executor.following:
            async for event in super().on_subscribe_to_task(params, context):
                yield event
            return
        engine = self.executor.engine
        task = await task_of_turn(engine, params.id)
        if task is None:  # the handler's own answer (not found, or not a turn's task)
            async for event in super().on_subscribe_to_task(params, context):
                yield event
            return
        yield task
        if task.status.state != TaskState.TASK_STATE_WORKING:
            return  # ended or waiting: the task says it all
        queue = _Collected()
        updater = TaskUpdater(cast("EventQueue", queue), task.id, task.context_id)
        handle = engine.turn(task.id)
        follower = asyncio.ensure_future(
            self.executor.translate(handle.aevents(0), updater, "", None)
        )
        follower.add_done_callback(lambda _: queue.items.put_nowait(None))
        try:
            while (item := await queue.items.get()) is not None:
                yield item
        finally:
            follower.cancel()
