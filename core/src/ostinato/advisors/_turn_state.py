"""The state of one turn of the tool loop, and the plumbing its drivers use.

:class:`TurnState` holds what a turn of a :class:`~ostinato.advisors.ToolCallingAdvisor`
keeps between rounds (options, history, summed usage, round and tool-call counts, the
usage limits, the no-progress tracker, the cancel scope, the events) and offers the
drivers what is not a decision: the chain inside the loop, the eligibility check, the
waits raced against the cancel scope, and the stream's tail. Every decision of the loop
is made by its subclass :class:`~ostinato.advisors._tool_loop.ToolLoopTurn`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Self, TypeVar

from ostinato._aio import closing_stream
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.advisors._loop_cancel import (
    CANCELLED,
    RoundCancelled,
    cancel_scope_of,
    guarded,
    guarded_each,
)
from ostinato.advisors._loop_exit import LoopExitReason, ToolLoopExit, notify_loop_exit
from ostinato.advisors._loop_steps import LoopExit
from ostinato.advisors._no_progress import NoProgressTracker
from ostinato.advisors._round_marks import RoundMarker, stream_tail, with_previous_usage
from ostinato.advisors._tool_calling_settings import default_eligibility_checker
from ostinato.advisors._usage_limits import UsageLimits
from ostinato.context_keys import EVENT_SINK, STEERING, USAGE_LIMITS
from ostinato.events import EventSink
from ostinato.messages import Message
from ostinato.model import ChatResponse, UsageAccumulator
from ostinato.prompt import ToolCallingChatOptions
from ostinato.units._unit import _BOUND

if TYPE_CHECKING:
    from contextvars import Token

    from ostinato.advisors._aggregation import ChatClientMessageAggregator
    from ostinato.advisors._chain import AdvisorChain
    from ostinato.advisors._loop_events import TurnEvents
    from ostinato.advisors._tool_calling import ToolCallingAdvisor
    from ostinato.runtime._steering import Steering
    from ostinato.tools._eager import EagerStarts

__all__ = ["TurnState"]

T = TypeVar("T")


class TurnState:
    """The state of one turn of the tool loop (options, history, usage, round number,
    limits, cancel scope, events) and what the drivers need of it besides the decisions,
    which are :class:`~ostinato.advisors._tool_loop.ToolLoopTurn`'s."""

    __slots__ = (
        "_advisor",
        "_after",
        "_before",
        "_chain",
        "_checker",
        "_final",
        "_limit_reached",
        "_limits",
        "_next",
        "_progress",
        "_scope",
        "_steering",
        "events",
        "history",
        "instructions",
        "options",
        "request",
        "rounds",
        "stream",
        "tool_calls",
        "usage",
    )

    def __init__(
        self,
        advisor: ToolCallingAdvisor,
        request: ChatClientRequest,
        chain: AdvisorChain,
        options: ToolCallingChatOptions,
        *,
        stream: bool,
    ) -> None:
        self._advisor = advisor
        self._chain = chain
        self._checker = advisor.tool_execution_eligibility_checker
        if stream:
            self._before = advisor.do_before_stream
            self._after = advisor.do_after_stream
            self._next = advisor.do_get_next_instructions_for_tool_call_stream
        else:
            self._before = advisor.do_before_call
            self._after = advisor.do_after_call
            self._next = advisor.do_get_next_instructions_for_tool_call
        self.stream = stream
        self.request = request
        self.options = options
        self.instructions: Sequence[Message] = request.prompt.messages
        self.history: Sequence[Message] = self.instructions
        self.usage = UsageAccumulator()
        self.rounds = 0
        self._scope = cancel_scope_of(request)
        # Messages added while the turn runs (``Steering``), taken at round boundaries.
        self._steering: Steering | None = request.context.get(STEERING)
        self.tool_calls = 0
        sink = request.context.get(EVENT_SINK)
        self.events: TurnEvents | None = None
        if not isinstance(sink, EventSink) and self._scope is not None:
            # Nobody listens, but a cancelled batch keeps the results of the calls that
            # finished: the sink's record of the batch says which.
            sink = EventSink(())
        if isinstance(sink, EventSink):  # somebody listens: the event classes load now
            from ostinato.advisors._loop_events import TurnEvents

            self.events = TurnEvents(sink)
        settings = advisor.tool_calling_settings
        limits = request.context.get(USAGE_LIMITS)
        self._limits = limits if isinstance(limits, UsageLimits) else settings.usage_limits
        repeats = settings.no_progress_repeats
        self._progress = NoProgressTracker(repeats) if repeats is not None else None
        # Set when the next round is the last, without tools: why, and the answer to give
        # if the model asks for tools all the same.
        self._final: tuple[LoopExitReason, ChatResponse] | None = None
        # The name of the usage limit the turn reached, for LoopEnded.
        self._limit_reached: str | None = None

    @classmethod
    async def start(
        cls,
        advisor: ToolCallingAdvisor,
        request: ChatClientRequest,
        chain: AdvisorChain,
        options: ToolCallingChatOptions,
        *,
        stream: bool,
    ) -> Self:
        """A new turn, after ``do_initialize_loop`` (or ``_stream``) ran on ``request``."""
        init = advisor.do_initialize_loop_stream if stream else advisor.do_initialize_loop
        return cls(advisor, await init(request, chain), chain, options, stream=stream)

    @property
    def max_iterations(self) -> int:
        """The most model rounds this turn may take (its advisor's setting)."""
        return self._advisor.max_iterations

    @property
    def whole_history(self) -> bool:
        """Whether each round forwards the whole turn (its advisor's setting)."""
        return self._advisor.conversation_history_enabled

    def is_tool_round(self, response: ChatResponse | None) -> bool:
        """Whether ``response`` asks for tools (the advisor's eligibility checker)."""
        if response is None:
            return False
        if self._checker is default_eligibility_checker and type(response) is ChatResponse:
            # The default checker, inlined: it runs once per streamed chunk.
            for generation in response.generations:  # noqa: SIM110 - no generator frame
                if generation.output.tool_calls:
                    return True
            return False
        return bool(self._checker(response))

    def bind_units(self) -> Token[Any]:
        """Make the chain's unit stack current (around tool execution, within one step:
        undo with ``_BOUND.reset``), so the tool calling manager runs its calls
        through it."""
        chain = self._chain
        return _BOUND.set((chain.units, chain.turn))  # bind_unit_stack, inlined

    async def tell_exit(self, ending: ToolLoopExit) -> None:
        """Tell the advisors inside the loop of ``ending`` (with the unit stack current:
        a memory advisor writes through it)."""
        token = self.bind_units()
        try:
            await notify_loop_exit(self.inner_chain().advisors, ending)
        finally:
            _BOUND.reset(token)

    @contextlib.asynccontextmanager
    async def early_starting(self) -> AsyncIterator[EagerStarts | None]:
        """The early starts of the next streamed round (``None`` unless its manager's
        ``EffectPolicy.eager_start`` is on, and never in a durable turn); on the way out
        those no call took are cancelled (all of them when the round ended in an error)."""
        manager = self._advisor.tool_calling_manager
        if getattr(getattr(manager, "_effects", None), "eager_start", False) is not True:
            yield None
            return
        from ostinato.advisors._loop_eager import eager_starting, early_starts

        starts = early_starts(self.options) if eager_starting(manager) else None
        try:
            yield starts
        finally:
            if starts is not None:
                await starts.cancel()

    async def with_starts(self, starts: EagerStarts | None, deciding: Awaitable[T]) -> T:
        """Await ``deciding`` (a round's decision) with ``starts`` current, if any."""
        if starts is None:
            return await deciding
        from ostinato.advisors._loop_eager import decide_with

        return await decide_with(starts, deciding)

    async def stream_round(
        self,
        request: ChatClientRequest,
        aggregator: ChatClientMessageAggregator,
        starts: EagerStarts | None = None,
    ) -> AsyncIterator[ChatClientResponse | RoundCancelled]:
        """One streamed round's chunks into ``aggregator`` (and ``starts``); those shown are
        yielded with the usage of earlier rounds added and stamped with their round
        number; ``CANCELLED`` last if the turn's cancel scope was cancelled (the round's
        stream is closed first)."""
        previous = self.usage.total
        marker = RoundMarker(self.rounds + 1)
        cancelled = False
        async with closing_stream(self.inner_chain().next_stream(request)) as chunks:
            async for chunk in self.guard_stream(chunks):
                if isinstance(chunk, RoundCancelled):  # the last item: the guard ends here
                    cancelled = True
                    continue
                aggregator.fold(chunk)
                if starts is not None:
                    starts.see(chunk.chat_response)
                shown = not self.is_tool_round(chunk.chat_response)
                if self.events is not None:
                    await self.events.chunk(self.rounds + 1, chunk, shown)
                if shown:
                    yield with_previous_usage(marker.mark(chunk), previous)
        if cancelled:
            yield CANCELLED

    def inner_chain(self) -> AdvisorChain:
        """A fresh chain of the advisors inside the loop, for one round."""
        return self._chain.copy(self._advisor)

    def guard(self, work: Awaitable[T]) -> Awaitable[T | RoundCancelled]:
        """``work``, raced against the request's cancel scope (``work`` itself without
        one); gives :data:`CANCELLED` once the scope is cancelled."""
        return work if self._scope is None else guarded(self._scope, work)

    def guard_stream(self, chunks: AsyncIterator[T]) -> AsyncIterator[T | RoundCancelled]:
        """``chunks``, each raced against the request's cancel scope; ends with
        :data:`CANCELLED` once the scope is cancelled (see :meth:`guard`)."""
        return chunks if self._scope is None else guarded_each(self._scope, chunks)

    def stream_tail(self, ending: LoopExit) -> ChatClientResponse | None:
        """What the stream path still yields after ``ending`` (see :func:`stream_tail`)."""
        return stream_tail(ending, self.usage, self.rounds)
