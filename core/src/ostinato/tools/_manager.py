"""``DefaultToolCallingManager``: runs one batch of tool calls and reports what happened.

Per batch (Spring AI's steps, except that failures go back to the model and calls run
concurrently):

1. pick the first generation that asks for tools;
2. for each call, in order: count it and check the limits (before looking the tool up);
   blank arguments become ``"{}"``; find the tool among the request's callbacks, then
   through the resolver if fallback is enabled; an unknown tool goes to the exception
   processor (by default the model reads ``Error: unknown tool ...``);
3. run the calls concurrently, each a :class:`~ostinato.units.ToolInvocation` through
   the unit stack the tool loop made current (core's wrappers alone outside the loop) —
   a ``sequential`` tool runs alone: the batch is cut into groups at each sequential
   call, groups run one after another in call order, and the calls inside a group run
   together (at most ``max_concurrency`` at a time: core's concurrency wrapper; see
   ``_execution``);
4. failures (bad arguments, a tool that raised or timed out) go to the exception
   processor; results keep the call order in one ``ToolResponseMessage``.

Tools that declare an effect class are run by the manager's :class:`~ostinato.tools.
EffectPolicy` (``ostinato.tools._effects``): calls with effects after the others, one at
a time in call order, and retries of read-only and idempotent calls. A batch with no
declared effect runs as described above.

It holds no per-turn state: limit counts come from the prompt's messages. The limits
are counted here, not in a unit wrapper: counting is in call order before any call runs,
a breach with ``THROW`` stops the batch before the calls after it are even made units,
and a call answered with the breach text never runs; a wrapper sees one call at a time,
when it runs (the calls of a group concurrently), and could keep none of that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ostinato._tool_contract import ToolCallback, ToolContext, ToolDefinition
from ostinato.errors import (
    ConfigurationError,
    NoToolCallError,
    ToolCallLimitExceeded,
    ToolExecutionError,
    ToolNotFoundError,
)
from ostinato.events import current_event_sink
from ostinato.messages import ToolResponse, ToolResponseMessage
from ostinato.model import ChatResponse
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.tools._exceptions import (
    DefaultToolExecutionExceptionProcessor,
    ToolExecutionExceptionProcessor,
)
from ostinato.tools._limits import (
    LimitBehavior,
    LimitBreach,
    ToolCallLimits,
    count_prior_tool_calls,
)
from ostinato.tools._resolver import ToolCallbackResolver
from ostinato.tools._result import ToolExecutionResult

if TYPE_CHECKING:
    from ostinato.tools._effects import EffectPolicy
    from ostinato.tools._manager_builder import DefaultToolCallingManagerBuilder
    from ostinato.tools._tool_events import ToolEvents
    from ostinato.units._tool_unit import ToolInvocation

__all__ = ["DefaultToolCallingManager"]


def _unknown_tool(name: str, available: Sequence[str]) -> ToolNotFoundError:
    listing = f"available tools: {', '.join(available)}" if available else "no tools are available"
    return ToolNotFoundError(
        f"unknown tool '{name}'; {listing}", tool_name=name, available=tuple(available)
    )


class DefaultToolCallingManager:
    """Executes the tool calls of a model response: limits, lookup, concurrency, errors.

    Args:
        tool_callback_resolver: finds tools that are not attached to the request; only
            consulted when ``resolution_fallback_enabled`` is true.
        exception_processor: turns failures into text for the model, or raises; defaults
            to :class:`DefaultToolExecutionExceptionProcessor`.
        limits: per-tool and per-turn call limits (:class:`ToolCallLimits`).
        resolution_fallback_enabled: look unknown names up through the resolver.
        max_concurrency: at most this many calls of one batch run at once (``None``: no cap).
        effects: what is done with the tools' effect classes (default:
            :class:`~ostinato.tools.EffectPolicy`'s defaults).

    Raises:
        ConfigurationError: an argument has the wrong type or value.
    """

    __slots__ = (
        "_effects",
        "_exception_processor",
        "_fallback",
        "_limits",
        "_max_concurrency",
        "_resolver",
    )

    def __init__(
        self,
        *,
        tool_callback_resolver: ToolCallbackResolver | None = None,
        exception_processor: ToolExecutionExceptionProcessor | None = None,
        limits: ToolCallLimits | None = None,
        resolution_fallback_enabled: bool = False,
        max_concurrency: int | None = None,
        effects: EffectPolicy | None = None,
    ) -> None:
        if effects is not None:
            from ostinato.tools._effects import EffectPolicy

            if not isinstance(effects, EffectPolicy):
                raise ConfigurationError(f"effects must be an EffectPolicy, got {effects!r}")
        if limits is None:
            limits = ToolCallLimits()
        if not isinstance(limits, ToolCallLimits):
            raise ConfigurationError(f"limits must be a ToolCallLimits, got {limits!r}")
        if max_concurrency is not None and (
            type(max_concurrency) is not int or max_concurrency < 1
        ):
            raise ConfigurationError(
                f"max_concurrency must be a positive number of calls or None for no cap, "
                f"got {max_concurrency!r}"
            )
        if tool_callback_resolver is not None and not callable(
            getattr(tool_callback_resolver, "resolve", None)
        ):
            raise ConfigurationError(
                f"tool_callback_resolver must have a resolve(name) method, "
                f"got {tool_callback_resolver!r}"
            )
        if exception_processor is not None and not callable(
            getattr(exception_processor, "process", None)
        ):
            raise ConfigurationError(
                f"exception_processor must have a process(error) method, "
                f"got {exception_processor!r}"
            )
        self._resolver = tool_callback_resolver
        self._exception_processor: ToolExecutionExceptionProcessor = (
            exception_processor or DefaultToolExecutionExceptionProcessor()
        )
        self._limits = limits
        self._fallback = bool(resolution_fallback_enabled)
        self._max_concurrency = max_concurrency
        self._effects = effects

    @staticmethod
    def builder() -> DefaultToolCallingManagerBuilder:
        """A fluent builder, for people coming from Spring (keyword arguments are simpler)."""
        from ostinato.tools._manager_builder import DefaultToolCallingManagerBuilder

        return DefaultToolCallingManagerBuilder()

    @property
    def tool_callback_resolver(self) -> ToolCallbackResolver | None:
        """The fallback resolver, if any."""
        return self._resolver

    @property
    def exception_processor(self) -> ToolExecutionExceptionProcessor:
        """Turns failures into text for the model, or raises."""
        return self._exception_processor

    @property
    def limits(self) -> ToolCallLimits:
        """The call limits."""
        return self._limits

    @property
    def resolution_fallback_enabled(self) -> bool:
        """Whether unknown names are looked up through the resolver."""
        return self._fallback

    @property
    def max_concurrency(self) -> int | None:
        """The cap on concurrent calls of one batch (``None``: no cap)."""
        return self._max_concurrency

    @property
    def effects(self) -> EffectPolicy:
        """What is done with the tools' effect classes."""
        effects = self._effects
        if effects is None:
            from ostinato.tools._effects import EffectPolicy

            effects = self._effects = EffectPolicy()
        return effects

    def resolve_tool_definitions(self, options: ChatOptions) -> list[ToolDefinition]:
        """The definitions of the tools attached to ``options``, in order (empty when the
        options cannot carry tools). The resolver is not consulted."""
        if options is None:
            raise ValueError("options must not be None")
        if not isinstance(options, ToolCallingChatOptions):
            return []
        return [cb.tool_definition for cb in options.tool_callbacks]

    async def execute_tool_calls(
        self, prompt: Prompt, chat_response: ChatResponse
    ) -> ToolExecutionResult:
        """Run the tool calls of ``chat_response``'s first tool-calling generation.

        Returns the prompt's messages + the assistant message + one tool response message
        (responses in call order), and whether the batch is return-direct: every call ran,
        succeeded, and is a return-direct tool. (Spring AI counts only the executed
        calls; here a call answered with an error — unknown tool, limit, failure — must
        reach the model, so it makes the batch not return-direct.)

        Raises:
            ValueError: ``prompt`` or ``chat_response`` is ``None``.
            NoToolCallError: no generation asks for a tool.
            ToolCallLimitExceeded: a limit was breached and the behaviour is THROW; the
                calls before the breach have run and are in ``partial_result``.
            Exception: whatever the exception processor raises.
        """
        if prompt is None:
            raise ValueError("prompt must not be None")
        if chat_response is None:
            raise ValueError("chat_response must not be None")
        generation = next((g for g in chat_response.generations if g.output.has_tool_calls), None)
        if generation is None:
            raise NoToolCallError("No tool call requested by the chat model")
        assistant = generation.output

        options = prompt.options
        callbacks: tuple[ToolCallback, ...] = ()
        context = ToolContext()
        if isinstance(options, ToolCallingChatOptions):
            callbacks = options.tool_callbacks
            context = ToolContext(options.tool_context)

        # Imported here, not at module level: it needs asyncio, which `import ostinato`
        # must not pay for.
        from ostinato.tools._execution import (
            BOUND_STACK,
            EAGER,
            ToolInvocation,
            groups_of,
            new_semaphore,
            run_group,
        )

        bound = BOUND_STACK.get()  # current_unit_stack(), read directly: once per batch
        if bound is not None:
            stack = bound[0]
        else:  # called outside the tool loop: core's wrappers alone
            from ostinato.tools._unit_wrappers import CORE_TOOL_STACK

            stack = CORE_TOOL_STACK
        sink = current_event_sink()
        events = None
        if sink is not None:
            from ostinato.tools._tool_events import ToolEvents

            events = ToolEvents(sink, self._exception_processor)
        semaphore = new_semaphore(self._max_concurrency)
        texts: list[str | None] = [None] * len(assistant.tool_calls)
        jobs: list[ToolInvocation] = []
        breach: tuple[int, LimitBreach] | None = None
        # The limits are counted here, in call order, before any call runs, and not in a
        # unit wrapper: a wrapper sees one call at a time, when it runs (the calls of a
        # group concurrently), while a breach must stop the batch before the calls after
        # it are even made units, and a call answered with the breach text never runs.
        policy = None  # the effect policy, read once a call declares an effect
        eager = EAGER.get()  # calls started while the round streamed
        counts = count_prior_tool_calls(prompt.messages)
        total = sum(counts.values())
        for index, call in enumerate(assistant.tool_calls):
            counts[call.name] += 1
            total += 1
            found = self._limits.check(call.name, counts[call.name], total)
            if found is not None:
                if self._limits.on_limit_exceeded is LimitBehavior.THROW:
                    breach = (index, found)
                    break
                texts[index] = found.message
                if events is not None:
                    await events.answered(call, found.message, ToolCallLimitExceeded.__name__)
                continue
            callback = self._find(call.name, callbacks)
            if callback is None:
                names = [cb.tool_definition.name for cb in callbacks]
                unknown = _unknown_tool(call.name, names)
                text = self._exception_processor.process(unknown)
                texts[index] = text
                if events is not None:
                    await events.answered(call, text, unknown)
                continue
            metadata = callback.tool_metadata
            arguments = call.arguments if call.arguments and call.arguments.strip() else "{}"
            effect = metadata.effect
            if effect is not None and policy is None:
                policy = self.effects
            invocation = ToolInvocation(
                call,
                callback,
                arguments,
                context,
                metadata.timeout,
                metadata.return_direct,
                metadata.sequential,
                index,
                semaphore,
                events,
                None,
                effect,
                None if policy is None else policy.retries_for(effect),
            )
            if eager is not None:
                invocation.eager = eager.take(call.id, callback, arguments)
            jobs.append(invocation)

        if policy is None or not policy.order_effects:
            groups = groups_of(jobs)
            ordered = len(groups)
        else:  # calls with effects after the others, one at a time
            from ostinato.tools._effects import ordered_groups

            groups, ordered = ordered_groups(jobs, groups_of)
        failed = False
        stopped: ToolInvocation | None = None  # the call with effects that failed
        for number, group in enumerate(groups):
            if stopped is not None:
                await self._not_run(group[0], stopped, texts, events)
                continue
            outcomes = await run_group(group, stack, policy is not None and policy.retries > 0)
            for job, outcome in zip(group, outcomes):
                if isinstance(outcome, str):
                    texts[job.index] = outcome
                    continue
                failed = True
                if events is not None:
                    texts[job.index] = events.processed(job.index, outcome)
                else:
                    texts[job.index] = self._exception_processor.process(outcome)
                if number >= ordered and policy is not None and policy.stop_after_failure:
                    stopped = job

        calls = assistant.tool_calls if breach is None else assistant.tool_calls[: breach[0] + 1]
        if breach is not None:
            texts[breach[0]] = breach[1].message
        responses = tuple(
            ToolResponse(call.id, call.name, text or "") for call, text in zip(calls, texts)
        )
        result = ToolExecutionResult(
            (*prompt.messages, assistant, ToolResponseMessage(responses)),
            # Errors go back to the model: a batch with a call that did not run (unknown
            # tool, limit) or failed is never returned directly, even if the rest is.
            return_direct=(
                bool(jobs)
                and len(jobs) == len(assistant.tool_calls)
                and not failed
                and all(job.return_direct for job in jobs)
            ),
        )
        if breach is not None:
            raise ToolCallLimitExceeded(
                breach[1].message,
                tool_name=breach[1].tool_name,
                limit=breach[1].limit,
                partial_result=result,
            )
        return result

    async def _not_run(
        self,
        job: ToolInvocation,
        failed: ToolInvocation,
        texts: list[str | None],
        events: ToolEvents | None,
    ) -> None:
        """Answer ``job`` (a call with effects) without running it: ``failed`` before it
        failed."""
        from ostinato.tools._effects import skipped_text

        text = skipped_text(job.call, failed.call)
        texts[job.index] = text
        if events is not None:
            error = ToolExecutionError(text, tool_name=job.call.name)
            await events.answered(job.call, text, error)

    def _find(self, name: str, callbacks: Sequence[ToolCallback]) -> ToolCallback | None:
        for cb in callbacks:
            if cb.tool_definition.name == name:
                return cb
        if self._fallback and self._resolver is not None:
            return self._resolver.resolve(name)
        return None
