"""The tool loop's one decision, shared by the call and the stream path.

A :class:`ToolLoopTurn` (its state, of one turn of a
:class:`~ostinato.advisors.ToolCallingAdvisor`, is its base
:class:`~ostinato.advisors._turn_state.TurnState`) makes every decision of the loop in
:meth:`ToolLoopTurn.decide`: given a round's response, either go on (:class:`NextRound`,
with the instructions of the next round) or stop (:class:`LoopExit`, with a
:class:`LoopExitReason` and the turn's answer). The advisor's ``advise_call`` and
``advise_stream`` are short drivers around it: they only move requests and chunks
through the chain.

Everything that happens in a turn happens here once — round start, tool execution (run
by ``_loop_tools``), the exit and the telling of
:class:`~ostinato.advisors.ToolLoopExitListener` advisors — so loop events and new ways
to end a turn (a new :class:`LoopExitReason`) are added in this one place. This module
must not know the chain's other advisors beyond telling them of an exit, and must not
stream: the drivers do.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.advisors._loop_answers import (
    approval_required_generation,
    cancelled_generation,
    iteration_cap,
)
from ostinato.advisors._loop_cancel import RoundCancelled
from ostinato.advisors._loop_exit import LoopExitReason, ToolLoopExit
from ostinato.advisors._loop_steps import LoopExit, NextRound
from ostinato.advisors._loop_tools import (
    CANCELLED_CALL_TEXT,
    answer_cancelled_calls,
    checked_resumed_turn,
    run_decided_calls,
    run_tools,
    tool_calls,
)
from ostinato.advisors._no_progress import (
    NoProgressAction,
    no_progress_answer,
    told_callbacks,
)
from ostinato.advisors._round_marks import mark_round
from ostinato.advisors._turn_state import TurnState
from ostinato.advisors._usage_limits import budget_answer, usage_breach
from ostinato.context_keys import (
    PENDING_TOOL_CALLS,
    RESUMED_TURN,
    SENT_OPTIONS,
)
from ostinato.errors import ToolCallLimitExceeded
from ostinato.events import reset_event_sink, set_event_sink
from ostinato.messages import ToolResponseMessage, UserMessage
from ostinato.model import ChatResponse, Generation
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.tools import ToolExecutionResult, tool_call_limit_generation
from ostinato.units._unit import _BOUND

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["CancellationTold", "LoopExit", "NextRound", "ToolLoopTurn"]


class ToolLoopTurn(TurnState):
    """One turn of the tool loop: the decision after each round.

    Made by :meth:`~TurnState.start` (which runs ``do_initialize_loop``/``_stream``). Per
    round a driver calls :meth:`begin_round` for the request, sends it down
    :meth:`~TurnState.inner_chain`, and hands the response (on the stream path, the
    round's aggregate) to :meth:`decide`. The hooks of the advisor run here, the call or
    the stream family as ``stream`` says; the turn's state is :class:`TurnState`'s.
    """

    __slots__ = ()

    async def begin_round(self) -> ChatClientRequest:
        """The next round's request, after ``do_before_call``/``_stream``; options set by
        the hook are sent, used to run tools, and carried into later rounds."""
        request = await self._before(
            ChatClientRequest(Prompt(self.instructions, self.options), self.request.context),
            self._chain,
        )
        options = request.prompt.options
        if isinstance(options, ToolCallingChatOptions):
            self.options = options
        if self.events is not None:
            await self.events.round_started(self.rounds + 1, request)
        return request

    async def decide(
        self, request: ChatClientRequest, response: ChatClientResponse
    ) -> NextRound | LoopExit:
        """After a round: run ``do_after_call``/``_stream`` and the tools, and say whether
        the loop goes on or why it ends (telling the listeners inside the loop)."""
        sent = response.context.get(SENT_OPTIONS)
        response = await self._after(response.without_context_keys(SENT_OPTIONS), self._chain)
        self.rounds += 1
        asked = response.chat_response
        self.usage.add(asked)
        events = self.events
        if events is not None and asked is not None:
            await events.round_finished(self.rounds, asked)
        if self._final is not None:  # the last round, without tools, at a limit
            reason, fallback = self._final
            if asked is not None and not self.is_tool_round(asked):
                return await self._exit(reason, request, response, asked, model_answered=True)
            answer = fallback if asked is None else asked.copy(generations=fallback.generations)
            return await self._exit(reason, request, response.copy(chat_response=answer), asked)
        if asked is None or not self.is_tool_round(asked):
            if self._steering is not None and self._final is None:  # a round boundary
                from ostinato.advisors._loop_steering import steer_after_answer

                steered = await steer_after_answer(self._steering, self, asked)
                if steered is not None:
                    self.history, self.instructions = steered
                    return NextRound(self.instructions)
            return await self._exit(LoopExitReason.ANSWERED, request, response, asked)
        if events is not None:
            await events.tool_calls_requested(self.rounds, asked)
        advisor = self._advisor
        if self.rounds >= advisor.max_iterations:
            capped = iteration_cap(
                asked, advisor.max_iterations, advisor.MAX_ITERATIONS_FINISH_REASON
            )
            return await self._limit(LoopExitReason.MAX_ITERATIONS, request, response, capped)
        calls = tool_calls(asked)
        budget = await self._budget(request, response, asked, len(calls))
        if budget is not None:
            return budget
        run_options = sent if isinstance(sent, ToolCallingChatOptions) else self.options
        repeated = self._progress.observe(calls) if self._progress is not None else None
        if repeated is not None:
            if advisor.tool_calling_settings.no_progress_action is NoProgressAction.END:
                answer = no_progress_answer(asked, repeated)
                return await self._limit(LoopExitReason.NO_PROGRESS, request, response, answer)
            run_options = run_options.with_tool_callbacks(
                told_callbacks(run_options.tool_callbacks, repeated)
            )
        # The manager finds the sink and the unit stack here (set and reset within this
        # one await, so the context of a streaming caller is never left changed).
        token = set_event_sink(events.sink if events is not None else None)
        units = _BOUND.set((self._chain.units, self._chain.turn))  # bind_units()
        try:
            result = await self.guard(
                run_tools(
                    advisor.tool_calling_manager,
                    Prompt(self.history, run_options),
                    asked,
                    self.request.context,
                    self.rounds,
                )
            )
        except ToolCallLimitExceeded as breached:
            limited = asked.copy(generations=[tool_call_limit_generation(breached)])
            return await self._limit(LoopExitReason.TOOL_CALL_LIMIT, request, response, limited)
        finally:
            _BOUND.reset(units)
            reset_event_sink(token)
        if isinstance(result, RoundCancelled):
            return await self._cancelled_tools(request, response, asked)
        if not isinstance(result, ToolExecutionResult):  # stopped for approvals
            # The pending turn carries what was spent so far: resumed, it counts on from
            # there (also when resumed from the event's JSON form, as a server does).
            result = dataclasses.replace(result, usage=self.usage.total, tool_calls=self.tool_calls)
            if events is not None:
                await events.approval_required(self.rounds, result)
            waiting = asked.copy(generations=[approval_required_generation(result)])
            held = response.copy(chat_response=waiting).with_context({PENDING_TOOL_CALLS: result})
            return await self._exit(LoopExitReason.APPROVAL_REQUIRED, request, held, asked)
        self.tool_calls += len(calls)
        if self._progress is not None:
            ran = calls if repeated is None else [c for c in calls if c not in repeated.calls]
            self._progress.record(ran, result.tool_response_message)
        return await self._after_tools(request, response, asked, result)

    async def _budget(
        self,
        request: ChatClientRequest,
        response: ChatClientResponse,
        asked: ChatResponse,
        batch: int,
    ) -> NextRound | LoopExit | None:
        """The ending at a usage limit a tool round of ``batch`` calls would break, if any
        (raising :class:`UsageLimitExceeded` when the limits say so); with
        ``final_answer_on_limit``, one last round without tools first, as at the cap."""
        total = self.usage.total
        tokens = total.total_tokens if total is not None else 0
        breach = usage_breach(
            self._limits,
            rounds=self.rounds,
            total_tokens=tokens,
            tool_calls=self.tool_calls,
            batch=batch,
        )
        if breach is None:
            return None
        self._limit_reached = breach.name
        if self._limits is not None and self._limits.raise_error:
            if self.events is not None:
                await self.events.ended(
                    LoopExitReason.BUDGET, None, total, self.rounds, breach.name
                )
            raise breach.error()
        answer = budget_answer(asked, breach)
        return await self._limit(LoopExitReason.BUDGET, request, response, answer)

    async def cancelled(self, request: ChatClientRequest) -> LoopExit:
        """The ending of a turn cancelled during a model round (nothing is asked of the
        tools, so no listener is told: no round of this turn is open). The cancelled
        round counts in ``LoopEnded.rounds``: it was started."""
        answer = ChatResponse([cancelled_generation(self._scope)])
        final = self.usage.apply(answer)
        response = ChatClientResponse(final, self.request.context)
        if self.events is not None:
            started = self.rounds + 1
            if self.stream:
                await self.events.text(started, final)
            await self.events.ended(LoopExitReason.CANCELLED, final, self.usage.total, started)
        if self.stream:
            response = mark_round(response, self.rounds + 1)
        return LoopExit(LoopExitReason.CANCELLED, request, response, None)

    async def interrupted(self) -> None:
        """Tell the listeners that the turn is being cancelled from outside — its task
        cancelled, a ``KeyboardInterrupt``, its stream closed, an engine cancelling a
        durable turn — before the cancellation goes on: a cancelled ``ToolFinished`` for
        each call of the round that has not finished, then ``LoopEnded(cancelled)`` with
        no answer. Nothing when the loop had already ended."""
        events = self.events
        if events is None or events.has_ended:
            return
        await events.cancel_unfinished(CANCELLED_CALL_TEXT)
        started = max(self.rounds, events.sink.round)
        await events.ended(LoopExitReason.CANCELLED, None, self.usage.total, started)

    def telling_cancellation(self) -> CancellationTold:
        """A context for the drivers' loop: a cancellation leaving it (any exception that
        is not an ``Exception``) is told to the listeners first (:meth:`interrupted`)."""
        return CancellationTold(self)

    async def _cancelled_tools(
        self, request: ChatClientRequest, response: ChatClientResponse, asked: ChatResponse
    ) -> LoopExit:
        # Calls that finished keep their results; the others are answered as cancelled
        # (and each gets its ToolFinished). The sink followed the batch: a turn with a
        # cancel scope always has one.
        events = self.events
        finished = events.sink.batch.finished if events is not None else {}
        assistant, answered = answer_cancelled_calls(asked, finished)
        if events is not None:
            await events.cancel_unfinished(CANCELLED_CALL_TEXT)
        self.history = (*self.history, assistant, answered)
        ending = asked.copy(generations=[cancelled_generation(self._scope)])
        return await self._exit(
            LoopExitReason.CANCELLED, request, response.copy(chat_response=ending), asked, answered
        )

    async def resume(self) -> NextRound | LoopExit | None:
        """On a request that resumes a pending turn (``RESUMED_TURN``): run the decided
        calls and say whether the loop goes on; ``None`` for any other request."""
        resumed = self.request.context.get(RESUMED_TURN)
        if resumed is None:
            return None
        turn = checked_resumed_turn(resumed)
        pending = turn.pending
        self.rounds = pending.rounds
        if pending.usage is not None:
            self.usage.add(ChatResponse().with_usage(pending.usage))
        # The stopped round's calls are all answered now: they count like a round's.
        self.tool_calls = pending.tool_calls + len(pending.assistant.tool_calls)
        prompt = Prompt(pending.messages, self.options)
        asked = ChatResponse([Generation(pending.assistant)])
        request = ChatClientRequest(prompt, self.request.context)
        response = ChatClientResponse(asked, self.request.context)
        events = self.events
        if events is not None:
            events.sink.round = pending.rounds  # the decided calls belong to the stopped round
        # As in a round: the manager finds the sink here to emit the decided calls' events.
        token = set_event_sink(events.sink if events is not None else None)
        units = _BOUND.set((self._chain.units, self._chain.turn))  # bind_units()
        try:
            result = await run_decided_calls(self._advisor.tool_calling_manager, prompt, turn)
        except ToolCallLimitExceeded as breach:
            limited = asked.copy(generations=[tool_call_limit_generation(breach)])
            return await self._limit(LoopExitReason.TOOL_CALL_LIMIT, request, response, limited)
        finally:
            _BOUND.reset(units)
            reset_event_sink(token)
        return await self._after_tools(request, response, asked, result)

    async def _after_tools(
        self,
        request: ChatClientRequest,
        response: ChatClientResponse,
        asked: ChatResponse,
        result: ToolExecutionResult,
    ) -> NextRound | LoopExit:
        self.history = result.conversation_history
        if result.return_direct:
            direct = asked.copy(generations=ToolExecutionResult.build_generations(result))
            return await self._exit(
                LoopExitReason.RETURN_DIRECT,
                request,
                response.copy(chat_response=direct),
                asked,
                result.tool_response_message,
            )
        self.instructions = await self._next(request, response, result)
        if self._steering is not None:  # a round boundary: steered messages join here
            from ostinato.advisors._loop_steering import steer_after_tools

            await steer_after_tools(self._steering, self)
        return NextRound(self.instructions)

    async def _limit(
        self,
        reason: LoopExitReason,
        request: ChatClientRequest,
        response: ChatClientResponse,
        answer: ChatResponse,
    ) -> NextRound | LoopExit:
        """End at a limit with ``answer``, or (``final_answer_on_limit``) go on to one last
        round without tools whose answer ends the turn. Either way the listeners inside
        the loop are told of the capped round now: its calls never run, and the last
        round, if any, is one they see."""
        asked = response.chat_response
        limited = response.copy(chat_response=answer)
        if not self._advisor.tool_calling_settings.final_answer_on_limit:
            return await self._exit(reason, request, limited, asked)
        assert asked is not None
        ending = ToolLoopExit(reason, request, asked, None, limited)
        await self.tell_exit(ending)
        self._final = (reason, answer)
        self.options = self.options.with_tool_callbacks(())
        note = (
            f"{answer.text} Do not call any more tools: answer the user now with what you "
            "have found so far."
        )
        self.instructions = (*self.history, UserMessage(note))
        return NextRound(self.instructions)

    async def _exit(
        self,
        reason: LoopExitReason,
        request: ChatClientRequest,
        response: ChatClientResponse,
        asked: ChatResponse | None,
        tool_responses: ToolResponseMessage | None = None,
        *,
        model_answered: bool = False,
    ) -> LoopExit:
        model_answered = model_answered or reason is LoopExitReason.ANSWERED
        final = self.usage.apply(response.chat_response)
        if final is not response.chat_response:
            response = response.copy(chat_response=final)
        events = self.events
        if events is not None:
            if self.stream and not model_answered:
                await events.text(self.rounds, final)  # the answer streams as one chunk
            await events.ended(reason, final, self.usage.total, self.rounds, self._limit_reached)
        if model_answered:  # advisors inside the loop saw this round: nothing to tell
            return LoopExit(reason, request, response, asked, model_answered=True)
        if self.stream:
            # The turn's answer replaces the round's: give it its own round number, so that
            # stream aggregators do not merge it with the text streamed in that round.
            response = mark_round(response, self.rounds + 1)
        assert asked is not None
        ending = ToolLoopExit(reason, request, asked, tool_responses, response)
        await self.tell_exit(ending)
        return LoopExit(reason, request, response, asked, tool_responses)


class CancellationTold:
    """What :meth:`ToolLoopTurn.telling_cancellation` gives: on the way out of its block,
    a ``BaseException`` that is not an ``Exception`` (``asyncio.CancelledError``,
    ``KeyboardInterrupt``, ``GeneratorExit``, an engine's own cancellation) makes the turn
    tell its listeners it ended cancelled; errors (``Exception``) go on untold, as before."""

    __slots__ = ("_turn",)

    def __init__(self, turn: ToolLoopTurn) -> None:
        self._turn = turn

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if error is not None and not isinstance(error, Exception):
            await self._turn.interrupted()
