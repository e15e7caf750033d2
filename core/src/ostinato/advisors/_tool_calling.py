"""``ToolCallingAdvisor``: the recursive advisor that owns the tool loop.

Each model round re-runs every advisor ordered after it (``chain.copy(self)``), so those
advisors are *inside* the loop; advisors ordered before it run once per turn. Behaviour
follows Spring AI's ``ToolCallingAdvisor``, with three changes: an iteration cap,
``do_finalize_loop_stream`` over the whole stream on every exit (Spring AI passes it only
a usage trailer on the normal exit), and tools added by inner advisors are executable.

Subclass it and override hooks; a subclass overriding one hook needs nothing else. The
loop's decisions (answered, return-direct, limit breach, iteration cap) are made once, in
:class:`~ostinato.advisors._tool_loop.ToolLoopTurn`; ``advise_call`` and the stream loop
here only drive it.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, Self

from ostinato._aio import closing_stream
from ostinato.advisors._aggregation import ChatClientMessageAggregator
from ostinato.advisors._api import CallAdvisor, Ordered, StreamAdvisor, ToolAdvisor
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.advisors._loop_cancel import RoundCancelled
from ostinato.advisors._loop_steps import LoopExit
from ostinato.advisors._no_progress import NoProgressAction
from ostinato.advisors._no_progress import no_progress_action as _action
from ostinato.advisors._tool_calling_settings import (
    ToolCallingAdvisorSettings,
    ToolExecutionEligibilityChecker,
    default_eligibility_checker,
)
from ostinato.advisors._tool_loop import ToolLoopTurn
from ostinato.advisors._usage_limits import UsageLimits
from ostinato.messages import Message
from ostinato.model import FinishReason
from ostinato.prompt import ToolCallingChatOptions
from ostinato.tools import ToolCallingManager, ToolExecutionResult

if TYPE_CHECKING:
    from ostinato.advisors._chain import AdvisorChain
    from ostinato.advisors._tool_calling_builder import ToolCallingAdvisorBuilder

__all__ = ["ToolCallingAdvisor"]


class _Unset:
    def __repr__(self) -> str:
        return "<default>"


_UNSET: Any = _Unset()


class ToolCallingAdvisor(CallAdvisor, StreamAdvisor, ToolAdvisor):
    """Runs the tool loop: ask the model, execute the tools it asked for, ask again.

    Args:
        tool_calling_manager: executes tool calls (default: a new
            :class:`~ostinato.tools.DefaultToolCallingManager`).
        tool_execution_eligibility_checker: decides which responses are tool rounds
            (default: those with tool calls).
        advisor_order: position in the chain, strictly between the precedence bounds
            (default :attr:`DEFAULT_ORDER`).
        conversation_history_enabled: forward the whole turn each round (default). When
            ``False`` only ``[system message, last tool response]`` is forwarded — for a
            memory advisor inside the loop that supplies the history itself.
        max_iterations: the most model rounds one turn may take (default 25); reaching it
            while the model still asks for tools ends the turn with finish reason
            ``maxIterationsExceeded``.
        final_answer_on_limit, no_progress_repeats, no_progress_action, usage_limits: how
            a turn ends well (:class:`~ostinato.advisors.ToolCallingAdvisorSettings`):
            one last round without tools at a limit, no-progress detection (off unless
            either setting is given; an action alone detects from 3 repeats), budgets.
    """

    DEFAULT_ORDER: ClassVar[int] = Ordered.HIGHEST_PRECEDENCE + 300
    DEFAULT_MAX_ITERATIONS: ClassVar[int] = 25
    MAX_ITERATIONS_FINISH_REASON: Final = FinishReason.MAX_ITERATIONS_EXCEEDED
    """The finish reason of the answer built at the iteration cap (a :class:`FinishReason`)."""

    _SETTINGS: ClassVar[tuple[str, ...]] = ToolCallingAdvisorSettings.names()

    def __init__(
        self,
        *,
        tool_calling_manager: ToolCallingManager = _UNSET,
        tool_execution_eligibility_checker: ToolExecutionEligibilityChecker = _UNSET,
        advisor_order: int = _UNSET,
        conversation_history_enabled: bool = True,
        max_iterations: int = _UNSET,
        final_answer_on_limit: bool = False,
        no_progress_repeats: int | None = _UNSET,
        no_progress_action: NoProgressAction | str = _UNSET,
        usage_limits: UsageLimits | None = None,
    ) -> None:
        if no_progress_repeats is _UNSET:  # off, unless an action asks for detection
            no_progress_repeats = None if no_progress_action is _UNSET else 3
        if no_progress_action is _UNSET:
            no_progress_action = NoProgressAction.TELL
        if tool_calling_manager is _UNSET:
            from ostinato.tools import DefaultToolCallingManager

            tool_calling_manager = DefaultToolCallingManager()
        self._configure(
            tool_calling_manager=tool_calling_manager,
            tool_execution_eligibility_checker=(
                default_eligibility_checker
                if tool_execution_eligibility_checker is _UNSET
                else tool_execution_eligibility_checker
            ),
            advisor_order=self.DEFAULT_ORDER if advisor_order is _UNSET else advisor_order,
            conversation_history_enabled=conversation_history_enabled,
            max_iterations=(
                self.DEFAULT_MAX_ITERATIONS if max_iterations is _UNSET else max_iterations
            ),
            final_answer_on_limit=final_answer_on_limit,
            no_progress_repeats=no_progress_repeats,
            no_progress_action=no_progress_action,
            usage_limits=usage_limits,
        )

    def _configure(
        self,
        *,
        tool_calling_manager: ToolCallingManager,
        tool_execution_eligibility_checker: ToolExecutionEligibilityChecker,
        advisor_order: int,
        conversation_history_enabled: bool,
        max_iterations: int,
        final_answer_on_limit: bool = False,
        no_progress_repeats: int | None = None,
        no_progress_action: NoProgressAction | str = NoProgressAction.TELL,
        usage_limits: UsageLimits | None = None,
    ) -> None:
        # The one place the base settings are set: __init__ and copy() come through here,
        # so a subclass taking its own settings out first keeps working.
        self._loop_settings = ToolCallingAdvisorSettings(
            tool_calling_manager,
            tool_execution_eligibility_checker,
            advisor_order,
            conversation_history_enabled,
            max_iterations,
            final_answer_on_limit,
            no_progress_repeats,
            _action(no_progress_action),
            usage_limits,
        )

    @property
    def name(self) -> str:
        """``"Tool Calling Advisor"``."""
        return "Tool Calling Advisor"

    @property
    def order(self) -> int:
        """The configured advisor order."""
        return self._loop_settings.advisor_order

    @property
    def tool_calling_settings(self) -> ToolCallingAdvisorSettings:
        """This advisor's settings, as one frozen value."""
        return self._loop_settings

    @property
    def tool_calling_manager(self) -> ToolCallingManager:
        """The manager executing tool calls."""
        return self._loop_settings.tool_calling_manager

    @property
    def tool_execution_eligibility_checker(self) -> ToolExecutionEligibilityChecker:
        """The checker deciding which responses are tool rounds."""
        return self._loop_settings.tool_execution_eligibility_checker

    @property
    def conversation_history_enabled(self) -> bool:
        """Whether each round forwards the whole turn."""
        return self._loop_settings.conversation_history_enabled

    @property
    def max_iterations(self) -> int:
        """The most model rounds per turn."""
        return self._loop_settings.max_iterations

    def settings(self) -> dict[str, Any]:
        """The constructor settings of this advisor by name (what :meth:`copy` starts
        from); a subclass with settings of its own adds them."""
        return self._loop_settings.as_dict()

    def copy(self, **changes: Any) -> Self:
        """A new advisor of the same class and settings, with ``changes`` applied (the
        ``ToolAdvisor`` contract; ``ChatClient`` calls it for every request).

        The base settings change like ``ToolCallingAdvisorSettings.replace``. Subclass
        state is copied shallowly (so caches are shared); a subclass with settings of its
        own lists them in ``_SETTINGS`` and takes them in ``_configure`` and
        :meth:`settings`, and one whose state must not be shared overrides this.

        Raises:
            TypeError: a name in ``changes`` is not a setting of this class.
        """
        if unknown := sorted(set(changes) - set(self._SETTINGS)):
            raise TypeError(
                f"{type(self).__name__}.copy() got unknown setting(s) {', '.join(unknown)}; "
                f"known: {', '.join(self._SETTINGS)}"
            )
        new = _copy.copy(self)
        new._configure(**{**self.settings(), **changes})
        return new

    @classmethod
    def builder(cls) -> ToolCallingAdvisorBuilder:
        """A fluent builder, for people coming from Spring AI."""
        from ostinato.advisors._tool_calling_builder import ToolCallingAdvisorBuilder

        return ToolCallingAdvisorBuilder(cls)

    # -- hooks --------------------------------------------------------------------------

    async def do_initialize_loop(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientRequest:
        """Once per turn, before the first round. Only messages and context of the result
        are used (options were captured before)."""
        return request

    async def do_before_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientRequest:
        """Before each model round. Options set here are sent, used to run tools, and
        carried into the next round."""
        return request

    async def do_after_call(
        self, response: ChatClientResponse, chain: AdvisorChain
    ) -> ChatClientResponse:
        """After each model round, before the tool decision."""
        return response

    async def do_finalize_loop(
        self, response: ChatClientResponse, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Once per turn, on every exit (answer, return-direct, limit, iteration cap)."""
        return response

    async def do_get_next_instructions_for_tool_call(
        self,
        request: ChatClientRequest,
        response: ChatClientResponse,
        result: ToolExecutionResult,
    ) -> Sequence[Message]:
        """The messages the next round forwards (the whole turn, or
        ``[system, last tool response]`` with history disabled)."""
        return self._next_instructions(request, result)

    async def do_initialize_loop_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientRequest:
        """Stream twin of :meth:`do_initialize_loop` (once per run of the stream)."""
        return request

    async def do_before_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientRequest:
        """Stream twin of :meth:`do_before_call`."""
        return request

    async def do_after_stream(
        self, response: ChatClientResponse, chain: AdvisorChain
    ) -> ChatClientResponse:
        """After each streamed round, on the round's aggregate (used for the tool
        decision and usage; the chunks were already emitted)."""
        return response

    def do_finalize_loop_stream(
        self, stream: AsyncIterator[ChatClientResponse], chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Receives the whole output stream of the turn and returns the stream the caller
        sees; runs on every exit. Override it as an async generator to transform chunks."""
        return stream

    async def do_get_next_instructions_for_tool_call_stream(
        self,
        request: ChatClientRequest,
        response: ChatClientResponse,
        result: ToolExecutionResult,
    ) -> Sequence[Message]:
        """Stream twin of :meth:`do_get_next_instructions_for_tool_call`."""
        return self._next_instructions(request, result)

    # -- the loop -----------------------------------------------------------------------

    def _next_instructions(
        self, request: ChatClientRequest, result: ToolExecutionResult
    ) -> Sequence[Message]:
        history = result.conversation_history
        if self._loop_settings.conversation_history_enabled:
            return history
        if not history:
            return ()
        return (request.prompt.system_message, history[-1])

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Run the tool loop on the call path (the decisions are :class:`ToolLoopTurn`'s)."""
        if chain is None:
            raise ValueError("chain (the call advisor chain) must not be None")
        if request is None:
            raise ValueError("request (the chat client request) must not be None")
        options = request.prompt.options
        if not isinstance(options, ToolCallingChatOptions):
            return await chain.next_call(request)
        turn = await ToolLoopTurn.start(self, request, chain, options, stream=False)
        async with turn.telling_cancellation():
            step = await turn.resume()
            while not isinstance(step, LoopExit):
                round_request = await turn.begin_round()
                response = await turn.guard(turn.inner_chain().next_call(round_request))
                if isinstance(response, RoundCancelled):
                    step = await turn.cancelled(round_request)
                else:
                    step = await turn.decide(round_request, response)
        return await self.do_finalize_loop(step.response, chain)

    def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Run the tool loop on the stream path (arguments are checked at once)."""
        if chain is None:
            raise ValueError("chain (the stream advisor chain) must not be None")
        if request is None:
            raise ValueError("request (the chat client request) must not be None")
        options = request.prompt.options
        if not isinstance(options, ToolCallingChatOptions):
            return chain.next_stream(request)
        return self.do_finalize_loop_stream(self._stream_loop(request, chain, options), chain)

    async def _stream_loop(
        self,
        request: ChatClientRequest,
        chain: AdvisorChain,
        options: ToolCallingChatOptions,
    ) -> AsyncIterator[ChatClientResponse]:
        # Chunks of tool rounds are hidden; the others are shown as they arrive (see
        # TurnState.stream_round). A round cancelled midway ends the turn with its own answer.
        turn = await ToolLoopTurn.start(self, request, chain, options, stream=True)
        # A reader who stops early closes this generator (GeneratorExit): a cancellation too.
        async with turn.telling_cancellation():
            step = await turn.resume()
            while not isinstance(step, LoopExit):
                round_request = await turn.begin_round()
                aggregator = ChatClientMessageAggregator()
                cancelled = False
                async with turn.early_starting() as starts:
                    round_chunks = turn.stream_round(round_request, aggregator, starts)
                    async with closing_stream(round_chunks) as shown:
                        async for chunk in shown:
                            if isinstance(chunk, RoundCancelled):
                                cancelled = True
                            else:
                                yield chunk
                    aggregate = aggregator.result()
                    if cancelled:
                        step = await turn.cancelled(round_request)
                    elif aggregate is None:
                        return
                    else:
                        step = await turn.with_starts(starts, turn.decide(round_request, aggregate))
            tail = turn.stream_tail(step)
            if tail is not None:
                yield tail
