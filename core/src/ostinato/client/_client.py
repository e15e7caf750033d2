"""``ChatClient``: the fluent entry point, and its builder of defaults."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ostinato.advisors import (
    Advisor,
    ChatModelCallAdvisor,
    ChatModelStreamAdvisor,
    ToolAdvisor,
    UsageLimits,
)
from ostinato.client._params import AdvisorParams
from ostinato.client._spec import KEEP_TEXT, ChatClientRequestSpec, OptionsCache, SpecState
from ostinato.events import EventListener
from ostinato.messages import Media
from ostinato.model import ChatModel
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.prompt_template import PromptTemplate
from ostinato.units._stack import UnitStack, UnitWrapper

__all__ = ["ChatClient", "ChatClientBuilder"]

_DEFAULT: Any = object()


class ChatClient:
    """Talks to a :class:`~ostinato.model.ChatModel` through an advisor chain.

    Build one with :meth:`builder` (defaults for every request) or :meth:`create`, then
    ``client.prompt("...").tools(...).call().content()``. A client is immutable and safe
    to share between threads and tasks; each ``prompt()`` starts an independent request.

    Unless told otherwise, every request runs through a copy of the client's *tool
    advisor* (a :class:`~ostinato.advisors.ToolCallingAdvisor` by default), which runs
    the tool loop. Its model rounds, tool calls and memory reads and writes run through
    its unit stack (:attr:`units`): core's wrappers and ``unit_wrappers``.
    """

    __slots__ = (
        "_defaults",
        "_model",
        "_model_advisors",
        "_options_cache",
        "_tool_advisor",
        "_units",
    )

    def __init__(
        self,
        model: ChatModel,
        *,
        defaults: SpecState | None = None,
        tool_advisor: ToolAdvisor | None = _DEFAULT,
        unit_wrappers: Iterable[UnitWrapper] = (),
    ) -> None:
        if model is None:
            raise ValueError("model must not be None: pass a ChatModel (e.g. from a plugin)")
        self._model = model
        self._defaults = defaults if defaults is not None else SpecState()
        if tool_advisor is _DEFAULT:
            from ostinato.advisors import ToolCallingAdvisor

            tool_advisor = ToolCallingAdvisor()
        elif tool_advisor is not None and not isinstance(tool_advisor, ToolAdvisor):
            raise TypeError(
                f"tool_advisor must be a ToolAdvisor (e.g. ToolCallingAdvisor), got "
                f"{type(tool_advisor).__name__}"
            )
        self._tool_advisor = tool_advisor
        self._model_advisors = (ChatModelCallAdvisor(model), ChatModelStreamAdvisor(model))
        self._options_cache = OptionsCache()
        from ostinato.tools._unit_wrappers import core_unit_wrappers

        self._units = UnitStack((*core_unit_wrappers(), *unit_wrappers))

    @staticmethod
    def builder(
        model: ChatModel, *, tool_advisor: ToolAdvisor | None = _DEFAULT
    ) -> ChatClientBuilder:
        """A builder of defaults for ``model``."""
        return ChatClientBuilder(model, tool_advisor=tool_advisor)

    @staticmethod
    def create(model: ChatModel) -> ChatClient:
        """A client with no defaults."""
        return ChatClient(model)

    @property
    def model(self) -> ChatModel:
        """The model requests go to."""
        return self._model

    @property
    def tool_advisor(self) -> ToolAdvisor | None:
        """The prototype copied into each request's chain (``None``: never added)."""
        return self._tool_advisor

    @property
    def units(self) -> UnitStack:
        """The unit stack its requests' units run through (``units.describe()`` shows it)."""
        return self._units

    @property
    def model_advisors(self) -> tuple[ChatModelCallAdvisor, ChatModelStreamAdvisor]:
        """The innermost advisors calling the model."""
        return self._model_advisors

    @property
    def model_default_options(self) -> ChatOptions:
        """The options every request starts from (the model's defaults)."""
        options = getattr(self._model, "default_options", None)
        return options if isinstance(options, ChatOptions) else ToolCallingChatOptions()

    def prompt(self, prompt: str | Prompt | None = None) -> ChatClientRequestSpec:
        """Start a request: a user text, a whole :class:`Prompt`, or nothing yet."""
        state = self._defaults.copy()
        spec = ChatClientRequestSpec(self, state, options_cache=self._options_cache)
        if isinstance(prompt, str):
            spec.user(prompt)
        elif isinstance(prompt, Prompt):
            state.messages.extend(prompt.messages)
            if prompt.options is not None:
                spec.options(prompt.options)
        elif prompt is not None:
            raise TypeError(f"prompt() takes a str or a Prompt, got {type(prompt).__name__}")
        return spec

    def mutate(self) -> ChatClientBuilder:
        """A builder starting from this client's defaults."""
        from ostinato.tools._unit_wrappers import core_unit_wrappers

        core = core_unit_wrappers()
        return ChatClientBuilder(
            self._model,
            tool_advisor=self._tool_advisor,
            defaults=self._defaults.copy(),
            unit_wrappers=[w for w in self._units.wrappers if w not in core],
        )

    def __repr__(self) -> str:
        return f"ChatClient(model={self._model!r}, tool_advisor={self._tool_advisor!r})"


class ChatClientBuilder:
    """Collects the defaults of a :class:`ChatClient`; every setter returns the builder.

    Defaults accumulate with per-request settings: tools and advisors append, tool
    context and advisor params merge (the request wins), options are laid over.
    """

    __slots__ = ("_model", "_state", "_tool_advisor", "_unit_wrappers")

    def __init__(
        self,
        model: ChatModel,
        *,
        tool_advisor: ToolAdvisor | None = _DEFAULT,
        defaults: SpecState | None = None,
        unit_wrappers: Iterable[UnitWrapper] = (),
    ) -> None:
        self._model = model
        self._state = SpecState() if defaults is None else defaults
        self._tool_advisor = tool_advisor
        self._unit_wrappers = list(unit_wrappers)

    def default_system(
        self, text: str | PromptTemplate = KEEP_TEXT, /, **params: Any
    ) -> ChatClientBuilder:
        """The system text of every request (a request's ``system()`` replaces it).

        ``default_system("You are {role}.", role="helpful")`` makes it a template; a
        request's ``system(role="terse")`` overrides a parameter and keeps the text.
        """
        self._state.set_system(text, params)
        return self

    def default_user(
        self, text: str | PromptTemplate = KEEP_TEXT, /, *media: Media, **params: Any
    ) -> ChatClientBuilder:
        """The user text of every request (a request's ``user()`` replaces it), with
        optional media and template parameters as in ``user()``."""
        self._state.set_user(text, media, params)
        return self

    def default_advisors(
        self, *advisors: Advisor | AdvisorParams | Iterable[Any]
    ) -> ChatClientBuilder:
        """Advisors (and advisor params) of every request."""
        self._state.add_advisors(advisors)
        return self

    def remove_default_advisors(self, kind: type[Advisor]) -> ChatClientBuilder:
        """Remove the default advisors that are instances of ``kind`` — e.g.
        ``MemoryAdvisor`` for a client whose requests carry their whole conversation."""
        self._state.advisors[:] = [a for a in self._state.advisors if not isinstance(a, kind)]
        return self

    def default_tools(self, *tools: Any) -> ChatClientBuilder:
        """Tools of every request (per-request tools are added after them)."""
        self._state.add_tools(tools)
        return self

    def default_tool_context(
        self, context: Mapping[str, Any] | None = None, /, **values: Any
    ) -> ChatClientBuilder:
        """Tool context of every request (per-request values win)."""
        self._state.set_tool_context({**(context or {}), **values})
        return self

    def default_options(self, options: ChatOptions) -> ChatClientBuilder:
        """Options of every request, laid over the model's defaults."""
        self._state.options = options
        return self

    def default_advisor_params(
        self, params: Mapping[str, Any] | AdvisorParams | None = None, /, **values: Any
    ) -> ChatClientBuilder:
        """Advisor-context entries of every request (per-request values win)."""
        if isinstance(params, AdvisorParams):
            params = params.params
        self._state.advisor_params.update({**(params or {}), **values})
        return self

    def default_usage_limits(self, limits: UsageLimits | None) -> ChatClientBuilder:
        """What each turn of every request may spend (a request's limits win)."""
        self._state.set_usage_limits(limits)
        return self

    def listener(self, listener: EventListener) -> ChatClientBuilder:
        """A listener of the loop events of every request (see
        :meth:`ChatClientRequestSpec.listener <ostinato.client.ChatClientRequestSpec.listener>`)."""
        self._state.add_listener(listener)
        return self

    def tool_advisor(self, advisor: ToolAdvisor | None) -> ChatClientBuilder:
        """The tool-advisor prototype copied into each request (``None``: never add one)."""
        self._tool_advisor = advisor
        return self

    def unit_wrappers(self, *wrappers: UnitWrapper) -> ChatClientBuilder:
        """Wrappers of the client's units (model rounds, tool calls, memory reads and
        writes), added to core's in its unit stack at the order each declares (see
        :class:`~ostinato.units.UnitWrapper`)."""
        for wrapper in wrappers:
            if not isinstance(wrapper, UnitWrapper):
                raise TypeError(
                    f"unit_wrappers() takes UnitWrapper values, got {type(wrapper).__name__}"
                )
        self._unit_wrappers.extend(wrappers)
        return self

    def build(self) -> ChatClient:
        """The client.

        Raises:
            ConfigurationError: two unit wrappers share a name, or two are durable
                engines' recorders.
        """
        return ChatClient(
            self._model,
            defaults=self._state.copy(),
            tool_advisor=self._tool_advisor,
            unit_wrappers=self._unit_wrappers,
        )
