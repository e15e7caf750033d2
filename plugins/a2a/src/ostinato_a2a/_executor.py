"""A2A tasks as ostinato turns: :class:`TurnExecutor`, the ``AgentExecutor`` the A2A
request handler runs.

A message that opens a task starts a turn on the served client (the task's
``contextId`` is the conversation); the turn's events stream as task updates: its answer
text as chunks of the ``answer`` artifact, its tool events as ``working`` status updates
carrying the loop event's JSON form in their metadata (under :data:`EVENT_METADATA_KEY`;
a tool's progress reports too); the completed status carries the turn's usage (under
:data:`USAGE_METADATA_KEY`).
A turn that stops for approval leaves the task ``input-required``, its status message
describing the waiting calls (a text part for people, a data part for programs); the next
message on the task brings the decisions and resumes the turn. Cancelling the task
cancels the turn. The answer ends as the ``answer`` artifact (a data part too, when the
answer is JSON: structured output), then the task completes.

Tasks live in this process: a waiting task is kept in memory (the oldest forgotten past
the server's ``max_pending``), and a restart forgets it — unless the server runs turns on
a durable engine, where :class:`~ostinato_a2a._durable.DurableTurnExecutor` (built on
this one) makes each task a durable turn.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Final

from a2a.helpers import new_data_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, Task, TaskState

from ostinato.client import AdvisorParams, ChatClientRequestSpec
from ostinato.events import ApprovalRequired, LoopEnded, LoopEvent, LoopExitReason, TextDelta
from ostinato.messages import AssistantMessage, UserMessage
from ostinato.tools import PendingToolCalls
from ostinato_a2a._decisions import DecisionError, describe_calls, read_decisions
from ostinato_serve.extending import PendingTurn, ServeState, failure_body

__all__ = [
    "ANSWER_ARTIFACT",
    "EVENT_METADATA_KEY",
    "PENDING_METADATA_KEY",
    "USAGE_METADATA_KEY",
    "TurnExecutor",
]

#: The metadata key of a status update that carries a loop event's JSON form.
EVENT_METADATA_KEY: Final = "ostinato/event"
#: The metadata key of an ``input-required`` status naming the calls that wait.
PENDING_METADATA_KEY: Final = "ostinato/pending"
#: The metadata key of the completed status carrying the turn's usage (its JSON form).
USAGE_METADATA_KEY: Final = "ostinato/usage"
#: The name of the artifact holding the turn's answer.
ANSWER_ARTIFACT: Final = "answer"

# The loop events a caller sees. round_started is left out: it carries the whole prompt,
# system text included, which is the served agent's own.
_FORWARDED: Final = frozenset(
    {
        "tool_call_requested",
        "tool_started",
        "tool_progress",
        "tool_finished",
        "round_finished",
        "loop_ended",
    }
)


def _public_form(event: LoopEvent) -> dict[str, Any]:
    data = event.to_dict()
    if event.kind == "approval_required":
        data.pop("pending", None)  # the stored turn holds the conversation: never sent
    return data


def _agent_message(updater: TaskUpdater, text: str, data: Any | None = None) -> Message:
    parts = [Part(text=text)]
    if data is not None:
        parts.append(new_data_part(data))
    return updater.new_agent_message(parts)


def _structured(text: str) -> Any | None:
    """The answer as JSON when it is a JSON object or array (structured output)."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


class TurnExecutor(AgentExecutor):
    """Runs each A2A task as a turn of the served client (see the module).

    Args:
        state: the served client, its tools and what the server keeps for it.
    """

    def __init__(self, state: ServeState) -> None:
        self.state = state
        self._waiting: OrderedDict[str, PendingTurn] = OrderedDict()

    @property
    def waiting(self) -> Mapping[str, PendingTurn]:
        """The turns waiting for decisions, by task id."""
        return self._waiting

    def _keep(self, task_id: str, turn: PendingTurn) -> None:
        self._waiting[task_id] = turn
        while len(self._waiting) > self.state.settings.max_pending:
            self._waiting.popitem(last=False)

    def _new_turn(self, context: RequestContext) -> tuple[ChatClientRequestSpec, str]:
        state = self.state
        question = context.get_user_input()
        conversation_id = context.context_id or ""
        spec = state.client.prompt()
        if state.has_memory:
            spec.advisors(AdvisorParams.conversation_id(conversation_id))
        else:
            spec.messages(state.histories.get(conversation_id))
        spec.user(question).tools(*state.tools)
        return spec, question

    async def opened(self, context: RequestContext, event_queue: EventQueue) -> TaskUpdater:
        """The updater of the message's task; a new task is enqueued first (``submitted``)."""
        task_id = context.task_id or ""
        known = context.current_task
        # A follow-up message may leave out the context id: the task's own is kept.
        context_id = known.context_id if known is not None else context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        if known is None:  # a new task: the handler wants it first
            task = Task(id=task_id, context_id=context_id)
            task.status.state = TaskState.TASK_STATE_SUBMITTED
            if context.message is not None:
                task.history.append(context.message)
            await event_queue.enqueue_event(task)
        return updater

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Start the task's turn, or resume it with the decisions the message brings."""
        updater = await self.opened(context, event_queue)
        task_id, context_id = updater.task_id, updater.context_id
        waiting = self._waiting.get(task_id)
        if waiting is not None:
            try:
                decisions = read_decisions(context.message, waiting.pending)
            except DecisionError as problem:
                await self.ask(updater, waiting.pending, f"{problem} ")
                return
            del self._waiting[task_id]
            spec = self.state.client.prompt().tools(*self.state.tools)
            if self.state.has_memory:
                spec.advisors(AdvisorParams.conversation_id(waiting.conversation_id))
            spec.resume(waiting.pending, decisions)
            question = waiting.question
        else:
            if context.message is not None and not context.get_user_input().strip():
                await updater.reject(_agent_message(updater, "the message holds no text"))
                return
            spec, question = self._new_turn(context)
        await updater.start_work()
        await self._run(spec, updater, question, context_id)

    async def _run(
        self, spec: ChatClientRequestSpec, updater: TaskUpdater, question: str, conversation: str
    ) -> None:
        def keep(pending: PendingToolCalls) -> None:
            self._keep(updater.task_id, PendingTurn(pending, conversation, question))

        await self.translate(spec.stream().aevents(), updater, question, keep)

    async def translate(
        self,
        events: AsyncIterator[LoopEvent],
        updater: TaskUpdater,
        question: str,
        keep: Callable[[PendingToolCalls], None] | None,
    ) -> None:
        """Tell the task what the turn's ``events`` say, until the turn ends or stops for
        approval (``keep``: called with the calls that wait, when the server keeps them)."""
        streamed: list[str] = []
        answer_id = f"{updater.task_id}-answer"
        stopped = False
        try:
            async for event in events:
                if isinstance(event, TextDelta):
                    # A turn stopping for approval says so in words: the status says it.
                    if event.text and not stopped:
                        await updater.add_artifact(
                            [Part(text=event.text)],
                            artifact_id=answer_id,
                            name=ANSWER_ARTIFACT,
                            append=bool(streamed),
                        )
                        streamed.append(event.text)
                    continue
                if isinstance(event, ApprovalRequired) and event.pending is not None:
                    pending = PendingToolCalls.from_dict(event.pending)
                    if keep is not None:
                        keep(pending)
                    await self.ask(updater, pending, "")
                    stopped = True
                    continue
                if isinstance(event, LoopEnded):
                    if event.reason is not LoopExitReason.APPROVAL_REQUIRED:
                        await self._finish(updater, event, "".join(streamed), answer_id, question)
                    return
                if event.kind in _FORWARDED:
                    await updater.update_status(
                        TaskState.TASK_STATE_WORKING,
                        metadata={EVENT_METADATA_KEY: _public_form(event)},
                    )
        except Exception as exc:  # the failure is the task's: told to the caller, masked
            message = failure_body(exc)["error"]["message"]
            await updater.failed(_agent_message(updater, message))

    async def _finish(
        self, updater: TaskUpdater, ended: LoopEnded, streamed: str, answer_id: str, question: str
    ) -> None:
        text = ended.response.text if ended.response is not None else None
        text = text if text is not None else streamed
        # The whole answer last, in one piece, replacing the streamed chunks (each chunk
        # is a part of its own once appended).
        parts = [Part(text=text)]
        structured = _structured(text)
        if structured is not None:
            parts.append(new_data_part(structured, "application/json"))
        await updater.add_artifact(
            parts, artifact_id=answer_id, name=ANSWER_ARTIFACT, append=False, last_chunk=True
        )
        metadata = {
            EVENT_METADATA_KEY: _public_form(ended),
            USAGE_METADATA_KEY: ended.usage.to_dict(),
        }
        if not self.state.has_memory and self.state.durable is None:
            self.state.histories.extend(
                updater.context_id, [UserMessage(question), AssistantMessage(text)]
            )
        await updater.update_status(
            TaskState.TASK_STATE_COMPLETED, message=_agent_message(updater, text), metadata=metadata
        )

    async def ask(self, updater: TaskUpdater, pending: PendingToolCalls, preface: str) -> None:
        """Leave the task ``input-required``, describing the calls that wait (``preface``:
        what to say first, e.g. why a message decided nothing)."""
        calls = describe_calls(pending)
        listing = "; ".join(f"{c['name']}({c['arguments']})" for c in calls)
        text = (
            f"{preface}Approval needed before these tool calls run: {listing}. Reply "
            "'approve' or 'deny' (for every call), or send a data part "
            '{"decisions": {"<call id>": {"decision": "approve"|"deny"|"edit", ...}}}.'
        )
        data = {"pending_calls": calls}
        await updater.update_status(
            TaskState.TASK_STATE_INPUT_REQUIRED,
            message=_agent_message(updater, text, data),
            metadata={PENDING_METADATA_KEY: data},
        )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Cancel the task: its running turn is cancelled by the request handler (the
        ``execute`` call is cancelled, which cancels the turn); a waiting turn is
        forgotten. The task ends ``canceled``."""
        task_id = context.task_id or ""
        self._waiting.pop(task_id, None)
        updater = TaskUpdater(event_queue, task_id, context.context_id or "")
        await updater.cancel()
