"""The typed events of one turn of the tool loop, and why a loop ends.

A turn emits, in order: per model round a :class:`RoundStarted`, on the stream path its
:class:`TextDelta` and :class:`ToolCallDelta` pieces as they arrive, a
:class:`RoundFinished` once the model's response is complete, then for a tool round one
:class:`ToolCallRequested` per call, a :class:`ToolStarted` / :class:`ToolFinished`
pair per call that runs (with, between them, a :class:`ToolProgress` per report the
running tool made) and a lone ``ToolFinished`` per call answered without running;
an :class:`ApprovalRequired` when calls wait for a decision; in a durable turn replayed
after a crash, a :class:`ToolInDoubt` for a call with effects that was in flight; and last a
:class:`LoopEnded` (on the stream path, an answer the loop built itself — return-direct,
a limit — comes as one :class:`TextDelta` just before it). A cancelled turn ends with a
``ToolFinished`` (failure ``cancelled``) for each call that had not finished, then its
``LoopEnded``, whichever way it was cancelled. Every event is a frozen,
slotted value; every one but the deltas is emitted the same way on the call and the
stream path.

This module only describes events; it must not emit them (``_sink`` does) nor know the
loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ostinato._frozen import EMPTY, freeze
from ostinato.events._failure import ToolFailureKind
from ostinato.events._reason import LoopExitReason
from ostinato.messages import Message, ToolCall
from ostinato.model import ChatResponse, Usage
from ostinato.prompt import Prompt

__all__ = [
    "ApprovalRequired",
    "LoopEnded",
    "LoopEvent",
    "LoopExitReason",
    "RoundAbandoned",
    "RoundFinished",
    "RoundStarted",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallRequested",
    "ToolFailureKind",
    "ToolFinished",
    "ToolInDoubt",
    "ToolProgress",
    "ToolStarted",
]


@dataclass(frozen=True, slots=True)
class LoopEvent:
    """Base of every loop event: a frozen value with a JSON form.

    ``kind`` names the event in its JSON form (``{"schema_version": 1, "kind": ...}``,
    see :func:`~ostinato.events.event_from_dict`). ``round`` is the model round (from 1)
    the event belongs to; the events of a turn that ended before any round (none do
    today) would carry 0.

    Every event also carries its place in its turn, stamped by the sink that emits it
    (keyword-only, not compared, ``0`` / ``None`` on an event nobody emitted):

    Attributes:
        turn_id: the turn's id: that of the turn's log (a durable turn's id, a served
            turn's id), ``None`` for a turn without one.
        seq: its position in the turn, contiguous from 1; in a log that outlives a
            process (a durable turn's), the same on every replay of the turn.
    """

    turn_id: str | None = field(default=None, kw_only=True, compare=False)
    seq: int = field(default=0, kw_only=True, compare=False)

    kind: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (see :mod:`ostinato.events` for the schema)."""
        from ostinato.events._schema import event_to_dict

        return event_to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LoopEvent:
        """Rebuild an event from :meth:`to_dict`'s output.

        Raises:
            EventSchemaError: the data is not an event of this schema version (or not
                of this class, when called on a subclass).
        """
        from ostinato.events._schema import event_from_dict

        return event_from_dict(data, expected=None if cls is LoopEvent else cls)


@dataclass(frozen=True, slots=True)
class RoundStarted(LoopEvent):
    """A model round is about to be sent.

    Attributes:
        round: the round number (from 1).
        messages: the messages sent, as sent (after the advisors inside the loop ran
            their ``before`` part they are the tool advisor's, not the model's view).
        tool_names: the names of the tools offered to the model.
        options: the plain options sent (model, temperature...; no tools or tool
            context), as JSON values.
        prompt: the prompt object itself, in-process only (not in the JSON form, not
            compared).
    """

    kind: ClassVar[str] = "round_started"
    round: int
    messages: tuple[Message, ...]
    tool_names: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default=EMPTY)
    prompt: Prompt | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", tuple(self.messages))
        object.__setattr__(self, "tool_names", tuple(self.tool_names))
        object.__setattr__(self, "options", freeze(self.options))


@dataclass(frozen=True, slots=True)
class TextDelta(LoopEvent):
    """A piece of answer text as it streamed (stream path only).

    The deltas of a turn, concatenated, equal the text ``stream().content()`` yields.
    """

    kind: ClassVar[str] = "text_delta"
    round: int
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta(LoopEvent):
    """A piece of a tool call as it streamed (stream path only).

    Attributes:
        round: the round number.
        index: which call of the message the piece belongs to (``None`` when the
            provider sends whole calls).
        id: the call id, when this piece carries it (often only the first).
        name: the tool name, when this piece carries it.
        arguments: a fragment of the arguments' JSON text.
    """

    kind: ClassVar[str] = "tool_call_delta"
    round: int
    index: int | None
    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolCallRequested(LoopEvent):
    """The model asked for a tool call (complete; one event per call, in call order)."""

    kind: ClassVar[str] = "tool_call_requested"
    round: int
    call: ToolCall


@dataclass(frozen=True, slots=True)
class ToolStarted(LoopEvent):
    """A tool starts running for ``call``.

    Attributes:
        round: the round number.
        call: the call.
        effect: the tool's effect class (``read_only``, ``idempotent``,
            ``side_effecting``, ``destructive``), ``None`` when it declares none.
    """

    kind: ClassVar[str] = "tool_started"
    round: int
    call: ToolCall
    effect: str | None = None


@dataclass(frozen=True, slots=True)
class ToolProgress(LoopEvent):
    """A running tool call told how it is getting on
    (:func:`~ostinato.tools.report_progress`), between its :class:`ToolStarted` and its
    :class:`ToolFinished`.

    Attributes:
        round: the round number.
        call: the call.
        text: a line for people (may be empty).
        data: JSON values for programs, ``None`` when the report has none.
        fraction: how much is done, from 0 to 1, ``None`` when the tool does not know.
    """

    kind: ClassVar[str] = "tool_progress"
    round: int
    call: ToolCall
    text: str = ""
    data: Mapping[str, Any] | None = None
    fraction: float | None = None

    def __post_init__(self) -> None:
        if self.data is not None:
            object.__setattr__(self, "data", freeze(self.data))


@dataclass(frozen=True, slots=True)
class ToolInDoubt(LoopEvent):
    """A durable turn, replayed after a crash, found a call with effects that was in
    flight when its worker died: whether it took effect is unknown, and it is not run
    again unless its rule says so.

    Attributes:
        round: the round number.
        call: the call.
        effect: the tool's effect class (``side_effecting`` or ``destructive``).
        rule: how it is resolved: ``approve``, ``reconcile`` or ``fail``.
        key: the call's idempotency key (what a reconcile hook is asked about).
    """

    kind: ClassVar[str] = "in_doubt"
    round: int
    call: ToolCall
    effect: str
    rule: str
    key: str | None = None


@dataclass(frozen=True, slots=True)
class ToolFinished(LoopEvent):
    """A tool call ended (after its :class:`ToolStarted`), or was answered without running
    a tool — an unknown tool, a limit answered as text, a turn cancelled before the call
    started — with no ``ToolStarted``, duration 0 and its error class.

    Every call a turn asked for and started gets one, however the turn ends: when a turn
    is cancelled, each call that had not finished gets one with ``failure`` ``cancelled``
    before the turn's :class:`LoopEnded`.

    Attributes:
        round: the round number.
        call: the call.
        result: the text the model reads (on failure, the error text it reads).
        duration: seconds the tool ran.
        error: when the call failed, the qualified class name of what was raised: the
            tool's own exception class when the tool raised (``ValueError``, ``KeyError``),
            else ostinato's (``ToolTimeoutError``, ``ToolNotFoundError``,
            ``ToolArgumentsError``, ``ToolCallLimitExceeded``, ``CancelledError``); the
            same name telemetry records as ``error.type``. ``None`` on success.
        return_direct: whether the tool's result is returned directly.
        effect: the tool's effect class, as in :class:`ToolStarted`.
        failure: the kind of failure (:class:`~ostinato.events.ToolFailureKind`:
            ``raised``, ``timed_out``, ``bad_arguments``, ``unknown_tool``, ``limit``,
            ``cancelled``), ``None`` on success.
    """

    kind: ClassVar[str] = "tool_finished"
    round: int
    call: ToolCall
    result: str
    duration: float
    error: str | None = None
    return_direct: bool = False
    failure: ToolFailureKind | None = None
    effect: str | None = None


@dataclass(frozen=True, slots=True)
class RoundFinished(LoopEvent):
    """The model's response of a round is complete (after the advisors inside the
    loop saw it, before any tool runs).

    Attributes:
        round: the round number.
        response: the round's response (on the stream path, its aggregate).
        usage: the round's own usage.
    """

    kind: ClassVar[str] = "round_finished"
    round: int
    response: ChatResponse
    usage: Usage


@dataclass(frozen=True, slots=True)
class RoundAbandoned(LoopEvent):
    """A streamed round's pieces read so far are withdrawn: the round runs again.

    Only a durable turn's log holds one: its worker died while the round streamed (or
    before the round's :class:`RoundFinished` reached the log), and the worker that took
    the turn over streams the round again. A reader drops the events it read at
    positions ``first`` up to this event's (the round's :class:`TextDelta` and
    :class:`ToolCallDelta` pieces of the abandoned attempt); the round's pieces that
    follow are the ones its answer is made of.

    Attributes:
        round: the round number.
        first: the position (``seq``) of the first withdrawn event.
    """

    kind: ClassVar[str] = "round_abandoned"
    round: int
    first: int


@dataclass(frozen=True, slots=True)
class ApprovalRequired(LoopEvent):
    """Tool calls wait for a decision.

    Attributes:
        round: the round number.
        calls: the calls that need a decision, in call order.
        pending: the JSON form of what resumes the turn, when the turn ends waiting
            (``None`` while an approver decides inline).
    """

    kind: ClassVar[str] = "approval_required"
    round: int
    calls: tuple[ToolCall, ...]
    pending: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "calls", tuple(self.calls))
        if self.pending is not None:
            object.__setattr__(self, "pending", freeze(self.pending))


@dataclass(frozen=True, slots=True)
class LoopEnded(LoopEvent):
    """The turn's tool loop ended: always the last event of a turn that did not raise,
    and of a turn cancelled any way (its task cancelled, ``KeyboardInterrupt``, its stream
    closed early, a cancel scope), emitted before the cancellation goes on.

    Attributes:
        reason: why.
        response: the turn's answer as the tool advisor returns it (before
            ``do_finalize_loop`` and the advisors outside the loop); ``None`` when
            there is none (a turn cancelled by raising has none).
        usage: the usage of every round, summed.
        rounds: how many model rounds the turn took (a round cancelled midway counts).
        limit: with reason ``budget``, the usage limit reached (``model_requests``,
            ``total_tokens`` or ``tool_calls``); otherwise ``None``.
    """

    kind: ClassVar[str] = "loop_ended"
    reason: LoopExitReason
    response: ChatResponse | None
    usage: Usage
    rounds: int
    limit: str | None = None
