"""The tool loop's one decision, shared by the call and the stream path.

A :class:`ToolLoopTurn` holds the state of one turn of a
:class:`~ostinato.advisors.ToolCallingAdvisor` (options, history, usage, round number)
and makes every decision of the loop in :meth:`ToolLoopTurn.decide`: given a round's
response, either go on (:class:`NextRound`, with the instructions of the next round) or
stop (:class:`LoopExit`, with a :class:`LoopExitReason` and the turn's answer). The
advisor's ``advise_call`` and ``advise_stream`` are short drivers around it: they only
move requests and chunks through the chain.

Everything that happens in a turn happens here once — round start, tool execution, the
exit and the telling of :class:`~ostinato.advisors.ToolLoopExitListener` advisors — so
loop events and new ways to end a turn (a new :class:`LoopExitReason`) are added in this
one place. This module must not know the chain's other advisors beyond telling them of
an exit, and must not stream: the drivers do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ostinato._frozen import FrozenDict
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.advisors._loop_answers import approval_required_generation, cancelled_generation
from ostinato.advisors._loop_events import TurnEvents, turn_events
from ostinato.advisors._loop_exit import LoopExitReason, ToolLoopExit, notify_loop_exit
from ostinato.advisors._no_progress import (
    NoProgressAction,
    NoProgressTracker,
    no_progress_answer,
    told_callbacks,
)
from ostinato.advisors._usage_limits import UsageLimits, budget_answer, usage_breach
from ostinato.context_keys import (
    APPROVAL_SETTINGS,
    CANCEL_SCOPE,
    CONVERSATION_ID,
    PENDING_TOOL_CALLS,
    RESUMED_TURN,
    SENT_OPTIONS,
    TOOL_LOOP_ROUND,
    USAGE_LIMITS,
)
from ostinato.errors import ToolCallLimitExceeded, UsageLimitExceeded
from ostinato.events import reset_event_sink, set_event_sink
from ostinato.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    Generation,
    UsageAccumulator,
    cumulative_usage,
)
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.runtime._cancel_scope import (
    CancelScope,
    TurnCancelled,
    until_cancelled,
    until_cancelled_each,
)
from ostinato.tools import ToolExecutionResult, tool_call_limit_generation

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable

    from ostinato.advisors._chain import AdvisorChain
    from ostinato.advisors._tool_calling import ToolCallingAdvisor
    from ostinato.tools import PendingToolCalls

__all__ = [
    "LoopExit",
    "LoopExitReason",
    "NextRound",
    "RoundMarker",
    "ToolLoopTurn",
    "mark_round",
    "with_previous_usage",
]


@dataclass(frozen=True, slots=True)
class NextRound:
    """The loop goes on: the next round forwards ``instructions``."""

    instructions: Sequence[Message]


@dataclass(frozen=True, slots=True)
class LoopExit:
    """The loop ends.

    Attributes:
        reason: why.
        request: the last round's request.
        response: the turn's answer, usage of every round included (on the stream path,
            stamped with a round of its own unless the reason is ``ANSWERED``, whose
            chunks were streamed already).
        asked: the last round's model response (after ``do_after_call``/``_stream``).
        tool_responses: the responses of the tools that ran, when they are the answer
            (``RETURN_DIRECT``); otherwise ``None``.
        model_answered: the answer is the last round's response as the model gave it
            (``ANSWERED``, or a last round without tools at a limit): on the stream path
            its chunks were streamed already.
    """

    reason: LoopExitReason
    request: ChatClientRequest
    response: ChatClientResponse
    asked: ChatResponse | None
    tool_responses: ToolResponseMessage | None = None
    model_answered: bool = False


class ToolLoopTurn:
    """One turn of the tool loop: its state, and the decision after each round.

    Made by :meth:`start` (which runs ``do_initialize_loop``/``_stream``). Per round a
    driver calls :meth:`begin_round` for the request, sends it down :meth:`inner_chain`,
    and hands the response (on the stream path, the round's aggregate) to :meth:`decide`.
    The hooks of the advisor run here, the call or the stream family as ``stream`` says.
    """

    __slots__ = (
        "_advisor",
        "_after",
        "_before",
        "_chain",
        "_checker",
        "_final",
        "_limits",
        "_next",
        "_progress",
        "_scope",
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
        scope = request.context.get(CANCEL_SCOPE)
        self._scope = scope if isinstance(scope, CancelScope) else None
        self.tool_calls = 0
        self.events: TurnEvents | None = turn_events(request)
        settings = advisor.tool_calling_settings
        limits = request.context.get(USAGE_LIMITS)
        self._limits = limits if isinstance(limits, UsageLimits) else settings.usage_limits
        repeats = settings.no_progress_repeats
        self._progress = NoProgressTracker(repeats) if repeats is not None else None
        # Set when the next round is the last, without tools: why, and the answer to give
        # if the model asks for tools all the same.
        self._final: tuple[LoopExitReason, ChatResponse] | None = None

    @classmethod
    async def start(
        cls,
        advisor: ToolCallingAdvisor,
        request: ChatClientRequest,
        chain: AdvisorChain,
        options: ToolCallingChatOptions,
        *,
        stream: bool,
    ) -> ToolLoopTurn:
        """A new turn, after ``do_initialize_loop`` (or ``_stream``) ran on ``request``."""
        init = advisor.do_initialize_loop_stream if stream else advisor.do_initialize_loop
        return cls(advisor, await init(request, chain), chain, options, stream=stream)

    def is_tool_round(self, response: ChatResponse | None) -> bool:
        """Whether ``response`` asks for tools (the advisor's eligibility checker)."""
        return response is not None and bool(self._checker(response))

    def inner_chain(self) -> AdvisorChain:
        """A fresh chain of the advisors inside the loop, for one round."""
        return self._chain.copy(self._advisor)

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
            return await self._exit(LoopExitReason.ANSWERED, request, response, asked)
        if events is not None:
            await events.tool_calls_requested(self.rounds, asked)
        advisor = self._advisor
        if self.rounds >= advisor.max_iterations:
            capped = iteration_cap(
                asked, advisor.max_iterations, advisor.MAX_ITERATIONS_FINISH_REASON
            )
            return await self._limit(LoopExitReason.MAX_ITERATIONS, request, response, capped)
        calls = _tool_calls(asked)
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
        # The manager finds the sink here to emit the tool events (set and reset within
        # this one await, so the context of a streaming caller is never left changed).
        token = set_event_sink(events.sink if events is not None else None)
        try:
            result = await self.guard(self._run_tools(Prompt(self.history, run_options), asked))
        except TurnCancelled:
            return await self._cancelled_tools(request, response, asked)
        except ToolCallLimitExceeded as breached:
            limited = asked.copy(generations=[tool_call_limit_generation(breached)])
            return await self._limit(LoopExitReason.TOOL_CALL_LIMIT, request, response, limited)
        finally:
            reset_event_sink(token)
        if not isinstance(result, ToolExecutionResult):  # stopped for approvals
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
    ) -> LoopExit | None:
        """The ending at a usage limit a tool round of ``batch`` calls would break, if any
        (raising :class:`UsageLimitExceeded` when the limits say so)."""
        total = self.usage.total
        breach = usage_breach(
            self._limits,
            rounds=self.rounds,
            total_tokens=total.total_tokens if total is not None else 0,
            tool_calls=self.tool_calls,
            batch=batch,
        )
        if breach is None:
            return None
        if self._limits is not None and self._limits.raise_error:
            if self.events is not None:
                await self.events.ended(LoopExitReason.BUDGET, None, total, self.rounds)
            raise UsageLimitExceeded(
                breach.message, limit_name=breach.name, limit=breach.limit, used=breach.used
            )
        answer = budget_answer(asked, breach)
        return await self._exit(
            LoopExitReason.BUDGET, request, response.copy(chat_response=answer), asked
        )

    def guard(self, work: Awaitable[Any]) -> Awaitable[Any]:
        """``work``, raced against the request's cancel scope (``work`` itself without
        one); raises :class:`TurnCancelled` once the scope is cancelled."""
        return work if self._scope is None else until_cancelled(self._scope, work)

    def guard_stream(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """``chunks``, each raced against the request's cancel scope (see :meth:`guard`)."""
        return chunks if self._scope is None else until_cancelled_each(self._scope, chunks)

    async def cancelled(self, request: ChatClientRequest) -> LoopExit:
        """The ending of a turn cancelled during a model round (nothing is asked of the
        tools, so no listener is told: no round of this turn is open)."""
        answer = ChatResponse([cancelled_generation(self._scope)])
        final = self.usage.apply(answer)
        response = ChatClientResponse(final, self.request.context)
        if self.events is not None:
            if self.stream:
                await self.events.text(self.rounds, final)
            await self.events.ended(LoopExitReason.CANCELLED, final, self.usage.total, self.rounds)
        if self.stream:
            response = mark_round(response, self.rounds + 1)
        return LoopExit(LoopExitReason.CANCELLED, request, response, None)

    async def _cancelled_tools(
        self, request: ChatClientRequest, response: ChatClientResponse, asked: ChatResponse
    ) -> LoopExit:
        # Every call of the interrupted batch is answered, so the kept conversation has no
        # call without its response (providers refuse those).
        assistant = next(g.output for g in asked.generations if g.output.has_tool_calls)
        text = "Cancelled: the turn was cancelled before this call finished."
        answered = ToolResponseMessage(
            tuple(ToolResponse(c.id, c.name, text) for c in assistant.tool_calls)
        )
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
        from ostinato.tools._approval_batch import complete_batch
        from ostinato.tools._pending import ResumedTurn

        if not isinstance(resumed, ResumedTurn):
            raise TypeError(f"{RESUMED_TURN} must hold a ResumedTurn, got {resumed!r}")

        pending = resumed.pending
        self.rounds = pending.rounds
        prompt = Prompt(pending.messages, self.options)
        asked = ChatResponse([Generation(pending.assistant)])
        request = ChatClientRequest(prompt, self.request.context)
        response = ChatClientResponse(asked, self.request.context)
        try:
            result = await complete_batch(
                self._advisor.tool_calling_manager,
                prompt,
                pending.assistant,
                pending.responses,
                pending.return_direct or not pending.responses,
                resumed.decisions,
            )
        except ToolCallLimitExceeded as breach:
            limited = asked.copy(generations=[tool_call_limit_generation(breach)])
            return await self._limit(LoopExitReason.TOOL_CALL_LIMIT, request, response, limited)
        return await self._after_tools(request, response, asked, result)

    async def _run_tools(
        self, prompt: Prompt, asked: ChatResponse
    ) -> ToolExecutionResult | PendingToolCalls:
        manager = self._advisor.tool_calling_manager
        settings = self.request.context.get(APPROVAL_SETTINGS)
        options = prompt.options
        if settings is None and not (
            isinstance(options, ToolCallingChatOptions)
            and any(t.tool_metadata.requires_approval for t in options.tool_callbacks)
        ):
            return await manager.execute_tool_calls(prompt, asked)
        from ostinato.tools._approval import ApprovalSettings
        from ostinato.tools._approval_batch import execute_with_approvals, needs_approvals

        if not isinstance(settings, ApprovalSettings):
            settings = None
        if not needs_approvals(settings, prompt):
            return await manager.execute_tool_calls(prompt, asked)
        conversation = self.request.context.get(CONVERSATION_ID)
        return await execute_with_approvals(
            manager,
            prompt,
            asked,
            settings or ApprovalSettings(),
            rounds=self.rounds,
            conversation_id=conversation if isinstance(conversation, str) else None,
        )

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
        return NextRound(self.instructions)

    async def _limit(
        self,
        reason: LoopExitReason,
        request: ChatClientRequest,
        response: ChatClientResponse,
        answer: ChatResponse,
    ) -> NextRound | LoopExit:
        """End at a limit with ``answer``, or (``final_answer_on_limit``) go on to one last
        round without tools whose answer ends the turn."""
        asked = response.chat_response
        if not self._advisor.tool_calling_settings.final_answer_on_limit:
            return await self._exit(reason, request, response.copy(chat_response=answer), asked)
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
            await events.ended(reason, final, self.usage.total, self.rounds)
        if model_answered:  # advisors inside the loop saw this round: nothing to tell
            return LoopExit(reason, request, response, asked, model_answered=True)
        if self.stream:
            # The turn's answer replaces the round's: give it its own round number, so that
            # stream aggregators do not merge it with the text streamed in that round.
            response = mark_round(response, self.rounds + 1)
        assert asked is not None
        ending = ToolLoopExit(reason, request, asked, tool_responses, response)
        await notify_loop_exit(self.inner_chain().advisors, ending)
        return LoopExit(reason, request, response, asked, tool_responses)

    def stream_tail(self, ending: LoopExit) -> ChatClientResponse | None:
        """What the stream path still yields after ``ending``: the answer the loop built,
        or, for ``ANSWERED``, a trailer with the turn's usage when the last round's chunks
        did not carry it (``None``: nothing)."""
        if not ending.model_answered:
            return ending.response
        accumulated = self.usage.accumulated
        if self.usage.total is None or accumulated is None:
            return None
        if ending.asked is not None and not ending.asked.usage.is_empty:
            return None
        trailer = ChatResponse((), accumulated.metadata)
        return mark_round(ending.response.copy(chat_response=trailer), self.rounds)


def _tool_calls(response: ChatResponse) -> tuple[ToolCall, ...]:
    """The calls of the first generation asking for tools (the ones the manager runs)."""
    for generation in response.generations:
        if generation.output.has_tool_calls:
            return tuple(generation.output.tool_calls)
    return ()


def iteration_cap(response: ChatResponse, max_iterations: int, finish_reason: str) -> ChatResponse:
    """``response`` with one generation saying the loop stopped at ``max_iterations``."""
    text = (
        f"Stopped after {max_iterations} model rounds: the tool loop reached "
        f"max_iterations={max_iterations} while the model still asked for tools. "
        "Raise max_iterations (OSTINATO_TOOLS__MAX_ITERATIONS) if the task needs more rounds."
    )
    metadata = ChatGenerationMetadata(finish_reason=finish_reason)
    return response.copy(generations=[Generation(AssistantMessage(text), metadata)])


def mark_round(chunk: ChatClientResponse, round_number: int) -> ChatClientResponse:
    """``chunk`` stamped with ``round_number`` (under ``TOOL_LOOP_ROUND``)."""
    return RoundMarker(round_number).mark(chunk)


class RoundMarker:
    """Stamps chunks with their round; chunks of a round usually share one context object,
    so the stamped context is built once per distinct context, not once per chunk."""

    __slots__ = ("_in", "_out", "_round")

    def __init__(self, round_number: int) -> None:
        self._round = round_number
        self._in: object = None
        self._out: dict[str, Any] = {}

    def mark(self, chunk: ChatClientResponse) -> ChatClientResponse:
        """``chunk`` with the stamped context."""
        if chunk.context is not self._in:
            context = {k: v for k, v in chunk.context.items() if k != SENT_OPTIONS}
            context[TOOL_LOOP_ROUND] = self._round
            self._in, self._out = chunk.context, FrozenDict(context)
        return ChatClientResponse(chunk.chat_response, self._out)


def with_previous_usage(chunk: ChatClientResponse, previous: Any) -> ChatClientResponse:
    """``chunk`` with the usage of earlier rounds (``previous``) added to its own."""
    response = chunk.chat_response
    if previous is None or response is None or response.usage.is_empty:
        return chunk
    return chunk.copy(chat_response=response.with_usage(cumulative_usage(response.usage, previous)))
