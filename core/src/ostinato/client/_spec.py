"""The request spec: what one ``client.prompt(...)`` builds, and how it becomes a chain.

Per ``call()``/``stream()`` the spec (1) adds the client's tool advisor unless told not
to or another tool advisor is present, (2) checks that at most one tool advisor remains,
(3) builds the chain (advisors, then the model advisors innermost) and (4) builds the
request: messages, options merged onto the model's defaults, tools, tool context and the
advisor context — the steps of Spring AI's ``DefaultChatClient``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ostinato.advisors import (
    Advisor,
    AdvisorChain,
    ChatClientRequest,
    MemoryAdvisor,
    ToolAdvisor,
    UsageLimits,
    advisors_inside_tool_loop,
    check_tool_advisors,
)
from ostinato.client._params import AdvisorParams
from ostinato.client._spec_state import KEEP_TEXT, OptionsCache, SpecState
from ostinato.context_keys import (
    APPROVAL_SETTINGS,
    CANCEL_SCOPE,
    EVENT_SINK,
    RESUMED_TURN,
    STEERING,
    TOOL_CALLING_ADVISOR_AUTO_REGISTER,
)
from ostinato.events import EventListener, EventSink
from ostinato.messages import Media, Message, SystemMessage, UserMessage
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.prompt_template import PromptTemplate, template_for
from ostinato.tools import FunctionToolCallback, ToolCallback, ToolCallbackProvider

if TYPE_CHECKING:
    from ostinato.client._client import ChatClient
    from ostinato.client._responses import CallResponseSpec, StreamResponseSpec
    from ostinato.model import ChatModel
    from ostinato.runtime import CancelScope, Steering
    from ostinato.tools import ApprovalPolicy, Approver, PendingToolCalls

__all__ = ["KEEP_TEXT", "ChatClientRequestSpec", "OptionsCache", "SpecState"]


class ChatClientRequestSpec:
    """One request being described: fluent setters, then :meth:`call` or :meth:`stream`.

    Every setter returns the spec. Nothing runs until a result method of the call or
    stream spec is used.
    """

    __slots__ = ("_client", "_options_cache", "_state")

    def __init__(
        self, client: ChatClient, state: SpecState, *, options_cache: OptionsCache | None = None
    ) -> None:
        self._client = client
        self._state = state
        self._options_cache = OptionsCache() if options_cache is None else options_cache

    # -- fluent setters -----------------------------------------------------------------

    def system(
        self, text: str | PromptTemplate = KEEP_TEXT, /, **params: Any
    ) -> ChatClientRequestSpec:
        """Set the system text (replacing the client's default), or fill its template.

        ``system("You are {role}.", role="a pirate")`` renders ``{name}`` placeholders
        when the request is built; ``system(role="a pirate")`` keeps the text (the
        client's default) and sets parameters. A ``str`` without parameters is sent as
        written; a :class:`~ostinato.prompt_template.PromptTemplate` is always rendered.
        """
        self._state.set_system(text, params)
        return self

    def user(
        self, text: str | PromptTemplate = KEEP_TEXT, /, *media: Media, **params: Any
    ) -> ChatClientRequestSpec:
        """Set the user text, with optional media attachments and template parameters.

        ``user("Tell me about {topic}", topic="owls")`` renders the placeholders when
        the request is built (a missing or unused parameter raises
        :class:`~ostinato.errors.PromptTemplateError` then, before the model is called).
        ``user(topic="owls")`` keeps the current text (e.g. the client's default) and
        sets parameters. A ``str`` without parameters is sent as written, braces and all.
        """
        self._state.set_user(text, media, params)
        return self

    def messages(self, *messages: Message | Sequence[Message]) -> ChatClientRequestSpec:
        """Append messages (e.g. earlier turns) between the system and the user message."""
        for m in messages:
            if isinstance(m, list | tuple):
                self._state.messages.extend(m)
            else:
                self._state.messages.append(m)  # type: ignore[arg-type]  # narrowed: one message
        return self

    def tools(self, *tools: Any) -> ChatClientRequestSpec:
        """Add tools: ``@tool`` functions or objects, tool callbacks, lazy providers."""
        self._state.add_tools(tools)
        return self

    def tool_context(
        self, context: Mapping[str, Any] | None = None, /, **values: Any
    ) -> ChatClientRequestSpec:
        """Merge values into the tool context (handed to tools, never sent to the model)."""
        self._state.set_tool_context({**(context or {}), **values})
        return self

    def options(self, options: ChatOptions) -> ChatClientRequestSpec:
        """Options laid over the model's defaults (and the client's default options)."""
        if not isinstance(options, ChatOptions):
            raise TypeError(f"options must be ChatOptions, got {type(options).__name__}")
        self._state.options = _laid_over(self._state.options, options)
        return self

    def advisors(self, *advisors: Advisor | AdvisorParams | Iterable[Any]) -> ChatClientRequestSpec:
        """Add advisors and/or advisor params (``AdvisorParams.conversation_id(...)``...)."""
        self._state.add_advisors(advisors)
        return self

    def usage_limits(self, limits: UsageLimits | None) -> ChatClientRequestSpec:
        """What each turn of this request may spend (model requests, tokens, tool calls);
        wins over the client's default and the tool advisor's. ``None`` removes a
        client default."""
        self._state.set_usage_limits(limits)
        return self

    def listener(self, listener: EventListener) -> ChatClientRequestSpec:
        """Add a listener of this request's loop events (after the client's listeners).

        ``listener`` is called with each :mod:`ostinato.events` event of every run (call
        and stream), inline on the event loop running the turn; a coroutine function is
        awaited there. A listener that raises is reported once and never breaks the turn.
        """
        self._state.add_listener(listener)
        return self

    @property
    def listeners(self) -> tuple[EventListener, ...]:
        """The loop-event listeners of this request (the client's first)."""
        return tuple(self._state.listeners)

    def approval_policy(self, policy: ApprovalPolicy | None) -> ChatClientRequestSpec:
        """Decide per call whether it needs approval: ``policy(call, tool) -> bool``
        (replaces the tools' own ``requires_approval``; ``None``: back to those)."""
        if policy is not None and not callable(policy):
            raise TypeError(f"an approval policy must be callable, got {policy!r}")
        self._state.approval["policy"] = policy
        return self

    def approver(
        self, approver: Approver | None, *, timeout: float | None = None
    ) -> ChatClientRequestSpec:
        """Decide calls that need approval inline: ``approver(request)`` returns an
        ``ApprovalDecision`` (or a bool), sync or async, within ``timeout`` seconds.
        Without an approver such a turn ends with ``PendingToolCalls``."""
        if approver is not None and not callable(approver):
            raise TypeError(f"an approver must be callable, got {approver!r}")
        if timeout is not None and (isinstance(timeout, bool) or not timeout > 0):
            raise ValueError(f"approver timeout must be positive seconds or None, got {timeout!r}")
        self._state.approval["approver"] = approver
        self._state.approval["timeout"] = timeout
        return self

    def cancel_scope(self, scope: CancelScope) -> ChatClientRequestSpec:
        """Let ``scope.cancel()`` (from any thread) end this request's turn: the model
        request and running tools are cancelled and the turn ends with reason
        ``cancelled``, every call of an interrupted batch answered ``cancelled``."""
        from ostinato.runtime._cancel_scope import CancelScope

        if not isinstance(scope, CancelScope):
            raise TypeError(f"cancel_scope() takes a CancelScope, got {type(scope).__name__}")
        self._state.advisor_params[CANCEL_SCOPE] = scope
        return self

    def steering(self, steering: Steering) -> ChatClientRequestSpec:
        """Let ``steering.add(...)`` (from any thread or task) add user messages to this
        request's turn while it runs: each joins the conversation at the turn's next round
        boundary, without cancelling it (see :class:`~ostinato.runtime.Steering`)."""
        from ostinato.runtime._steering import Steering

        if not isinstance(steering, Steering):
            raise TypeError(f"steering() takes a Steering, got {type(steering).__name__}")
        self._state.advisor_params[STEERING] = steering
        return self

    def resume(
        self,
        pending: PendingToolCalls | Mapping[str, Any] | str,
        decisions: Mapping[str, Any],
    ) -> ChatClientRequestSpec:
        """Continue a turn that stopped for approvals: ``pending`` (the value, its
        ``to_dict()`` or its JSON) and one decision per awaited call id
        (``ApprovalDecision``, ``True``/``False``, or a decision's ``to_dict()``).

        Give the request the same tools (``.tools(...)``); the conversation is the
        pending one (set no user text). Everything is checked before any model call.

        Raises:
            ResumeError: the pending value or the decisions are not valid.
        """
        from ostinato.client._resume import resumed_turn

        self._state.resume = resumed_turn(pending, decisions)
        return self

    # -- results ------------------------------------------------------------------------

    def call(self) -> CallResponseSpec:
        """The blocking result spec (lazy)."""
        from ostinato.client._responses import CallResponseSpec

        return CallResponseSpec(self)

    def stream(self) -> StreamResponseSpec:
        """The streaming result spec (lazy)."""
        from ostinato.client._responses import StreamResponseSpec

        return StreamResponseSpec(self)

    # -- assembly -----------------------------------------------------------------------

    @property
    def model(self) -> ChatModel:
        """The model this request goes to."""
        return self._client.model

    @property
    def advisor_params(self) -> Mapping[str, Any]:
        """The advisor params set so far (the client's defaults, then this request's)."""
        return self._state.advisor_params

    def effective_advisors(self, extra: Sequence[Advisor] = ()) -> list[Advisor]:
        """The advisors of this request after auto-registration, invariant checked."""
        state = self._state
        advisors = [*state.advisors, *extra]
        params = state.advisor_params
        prototype = self._client.tool_advisor
        if (
            prototype is not None
            and params.get(TOOL_CALLING_ADVISOR_AUTO_REGISTER) is not False
            and not any(isinstance(a, ToolAdvisor) for a in advisors)
        ):
            advisors.append(prototype)
            memory_inside = any(isinstance(a, MemoryAdvisor) for a in advisors) and any(
                isinstance(a, MemoryAdvisor) for a in advisors_inside_tool_loop(advisors)
            )
            advisors[-1] = prototype.copy(conversation_history_enabled=not memory_inside)
        check_tool_advisors(advisors)
        return advisors

    def build_chain(self, extra: Sequence[Advisor] = ()) -> AdvisorChain:
        """A fresh chain for one run: the effective advisors, then the model advisors."""
        client = self._client
        return AdvisorChain([*self.effective_advisors(extra), *client.model_advisors], client.units)

    def fetches_tools(self) -> bool:
        """Whether a tool provider of this request fetches its tools (see
        :meth:`abuild_request`)."""
        return any(
            type(item) is not FunctionToolCallback and hasattr(item, "aget_tool_callbacks")
            for item in self._state.tools
        )

    async def abuild_request(self, context: Mapping[str, Any] | None = None) -> ChatClientRequest:
        """:meth:`build_request`, after awaiting the tool providers that fetch their tools
        (an ``aget_tool_callbacks()`` coroutine method, such as MCP servers listing theirs
        on first use), on the running loop; every run starts here."""
        for item in self._state.tools:
            if type(item) is not FunctionToolCallback:
                fetch = getattr(item, "aget_tool_callbacks", None)
                if fetch is not None:
                    await fetch()
        return self.build_request(context)

    def build_request(self, context: Mapping[str, Any] | None = None) -> ChatClientRequest:
        """The request for one run (tool providers are evaluated now: a provider that
        fetches its tools offers those of its last fetch; see :meth:`abuild_request`)."""
        state = self._state
        messages: list[Message] = []
        if state.system is not None:
            messages.append(SystemMessage(_rendered(state.system, state.system_params)))
        messages.extend(state.messages)
        user = None if state.user is None else _rendered(state.user, state.user_params)
        if user is not None:
            messages.append(UserMessage(user, tuple(state.media)))

        options = self._options()
        ctx = dict(state.advisor_params)
        if state.listeners:
            ctx[EVENT_SINK] = EventSink(state.listeners)
        if context:
            ctx.update(context)
        if state.approval or state.resume is not None:
            from ostinato.client._resume import approval_settings, check_resume

            if state.approval:
                ctx[APPROVAL_SETTINGS] = approval_settings(state.approval)
            if state.resume is not None:
                messages, options = check_resume(state.resume, user, options, ctx)
                ctx[RESUMED_TURN] = state.resume
        return ChatClientRequest(Prompt(messages, options), ctx)

    def _options(self) -> ChatOptions:
        """The request's options: the model's defaults, the spec's options, its tools and
        tool context.

        Requests of one client usually end up with equal options; the client remembers the
        last ones built without a tool context and hands the same object out again when
        the same defaults, options and tool objects come back. Options are immutable, and
        the same object lets the model reuse what it derived from them (the request body).
        """
        state = self._state
        client = self._client
        base = client.model_default_options
        # Combining keeps the defaults' class: only options that can carry tools get them.
        can_carry_tools = isinstance(base, ToolCallingChatOptions)
        tools = _resolve_tools(state.tools) if can_carry_tools else []
        cacheable = not state.tool_context
        if cacheable:
            cached = self._options_cache.entry
            if (
                cached is not None
                and cached[0] is base
                and cached[1] is state.options
                and len(cached[2]) == len(tools)
                and all(a is b for a, b in zip(cached[2], tools))
            ):
                return cached[3]
        options = base if state.options is None else base.combine_with(state.options)
        if isinstance(options, ToolCallingChatOptions):
            if tools:
                ToolCallingChatOptions.validate_tool_callbacks(tools)
                options = options.with_tool_callbacks(tools)
            if state.tool_context:
                options = options.with_tool_context(state.tool_context)
        if cacheable:
            self._options_cache.entry = (base, state.options, tuple(tools), options)
        return options

    def describe(self) -> str:
        """The chain this request would run, rendered (see ``AdvisorChain.describe``)."""
        return self.build_chain().describe()


def _laid_over(current: ChatOptions | None, options: ChatOptions) -> ChatOptions:
    """``options`` laid over ``current``. Combining keeps the first object's class, so
    when ``options`` are of a more specific class (``ToolCallingChatOptions`` over the
    client's plain ``ChatOptions``) the result takes theirs, losing none of their fields."""
    if current is None:
        return options
    kind = type(options)
    if kind is not type(current) and isinstance(options, type(current)):
        try:
            empty = kind()
        except TypeError:  # a class that cannot be made empty: keep the first class
            return current.combine_with(options)
        return empty.combine_with(current).combine_with(options)
    return current.combine_with(options)


def _resolve_tools(items: Sequence[ToolCallback | ToolCallbackProvider]) -> list[ToolCallback]:
    tools: list[ToolCallback] = []
    for item in items:
        # The exact class first: a runtime-checkable protocol's isinstance is slow.
        if type(item) is FunctionToolCallback or isinstance(item, ToolCallback):
            tools.append(item)
        else:
            tools.extend(item.get_tool_callbacks())
    return tools


def _rendered(text: str | PromptTemplate, params: Mapping[str, Any]) -> str:
    """Templates are rendered when parameters are given (and a ``PromptTemplate`` always);
    a plain text without parameters is sent as written, as Spring AI does."""
    if isinstance(text, PromptTemplate):
        return text.render(params)
    return template_for(text).render(params) if params else text
