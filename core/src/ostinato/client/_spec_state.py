"""The mutable state of a request spec (the client keeps one as its defaults and copies it
per request), and the cache of built options a client's specs share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ostinato.advisors import Advisor, UsageLimits
from ostinato.client._params import AdvisorParams
from ostinato.context_keys import USAGE_LIMITS
from ostinato.events import EventListener
from ostinato.messages import Media, Message
from ostinato.prompt import ChatOptions
from ostinato.prompt_template import PromptTemplate
from ostinato.tools import ToolCallback, ToolCallbackProvider

if TYPE_CHECKING:
    from ostinato.tools import ResumedTurn

__all__ = ["KEEP_TEXT", "OptionsCache", "SpecState"]

#: The default of ``user()``/``system()``'s text: keep the current text, set parameters.
KEEP_TEXT: Any = object()


class OptionsCache:
    """The options of the last request a client built without a tool context, kept as
    ``(model defaults, spec options, tools, built options)`` and handed out again when the
    same objects come back. One per client, shared by its request specs; the entry is
    replaced whole, so sharing the client between threads is safe."""

    __slots__ = ("entry",)

    def __init__(self) -> None:
        self.entry: (
            tuple[ChatOptions, ChatOptions | None, tuple[ToolCallback, ...], ChatOptions] | None
        ) = None


@dataclass
class SpecState:
    """The mutable parts of a spec; the client keeps one as its defaults and copies it."""

    system: str | PromptTemplate | None = None
    user: str | PromptTemplate | None = None
    media: list[Media] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    advisors: list[Advisor] = field(default_factory=list)
    tools: list[ToolCallback | ToolCallbackProvider] = field(default_factory=list)
    tool_context: dict[str, Any] = field(default_factory=dict)
    options: ChatOptions | None = None
    advisor_params: dict[str, Any] = field(default_factory=dict)
    system_params: dict[str, Any] = field(default_factory=dict)
    user_params: dict[str, Any] = field(default_factory=dict)
    listeners: list[EventListener] = field(default_factory=list)
    approval: dict[str, Any] = field(default_factory=dict)
    resume: ResumedTurn | None = None

    def copy(self) -> SpecState:
        """An independent copy (lists and dicts copied)."""
        return SpecState(
            self.system,
            self.user,
            list(self.media),
            list(self.messages),
            list(self.advisors),
            list(self.tools),
            dict(self.tool_context),
            self.options,
            dict(self.advisor_params),
            dict(self.system_params),
            dict(self.user_params),
            list(self.listeners),
            dict(self.approval),
            self.resume,
        )

    def set_system(self, text: str | PromptTemplate, params: Mapping[str, Any]) -> None:
        """A new system text replaces the text and its parameters; with ``KEEP_TEXT`` the
        parameters merge into the current ones (to fill a default template)."""
        if text is KEEP_TEXT:
            self.system_params.update(params)
        else:
            self.system = _text(text, "system")
            self.system_params = dict(params)

    def set_user(
        self, text: str | PromptTemplate, media: Sequence[Media], params: Mapping[str, Any]
    ) -> None:
        """As :meth:`set_system`; a new text also replaces the media."""
        if text is KEEP_TEXT:
            self.user_params.update(params)
        else:
            self.user = _text(text, "user")
            self.user_params = dict(params)
            self.media = list(media)

    def set_usage_limits(self, limits: UsageLimits | None) -> None:
        """Set (or, with ``None``, remove) the usage limits of each turn."""
        if limits is None:
            self.advisor_params.pop(USAGE_LIMITS, None)
            return
        if not isinstance(limits, UsageLimits):
            raise TypeError(
                f"usage limits must be a UsageLimits (ostinato.advisors.UsageLimits), got "
                f"{type(limits).__name__}: {limits!r}"
            )
        self.advisor_params[USAGE_LIMITS] = limits

    def add_listener(self, listener: EventListener) -> None:
        """Append a loop-event listener (a callable taking one event)."""
        if not callable(listener):
            raise TypeError(
                f".listener() takes a callable receiving each loop event (a function or "
                f"coroutine function), got {type(listener).__name__}: {listener!r}"
            )
        self.listeners.append(listener)

    def add_tools(self, items: Iterable[Any]) -> None:
        """Append tools: callbacks, providers (kept lazy), ``@tool`` functions or objects,
        and lists of these."""
        from ostinato.tools import tool_callbacks

        for item in items:
            if item is None:
                raise TypeError("tools must not be None")
            if isinstance(item, ToolCallback | ToolCallbackProvider):
                self.tools.append(item)
            elif isinstance(item, list | tuple | set | frozenset):
                self.add_tools(item)
            else:
                self.tools.extend(tool_callbacks(item))

    def add_advisors(self, items: Iterable[Any]) -> None:
        """Append advisors and merge advisor params (lists of either are flattened)."""
        for item in items:
            if isinstance(item, Advisor):
                self.advisors.append(item)
            elif isinstance(item, AdvisorParams):
                self.advisor_params.update(item.params)
            elif isinstance(item, Mapping):
                self.advisor_params.update(item)
            elif isinstance(item, list | tuple):
                self.add_advisors(item)
            else:
                raise TypeError(
                    f".advisors() takes Advisor instances and AdvisorParams, got "
                    f"{type(item).__name__}: {item!r}"
                )

    def set_tool_context(self, context: Mapping[str, Any]) -> None:
        """Merge ``context`` into the tool context (keys must be non-blank strings)."""
        for key in context:
            if not isinstance(key, str) or not key.strip():
                raise ValueError(f"tool context keys must be non-blank strings, got {key!r}")
        self.tool_context.update(context)


def _text(value: str | PromptTemplate, what: str) -> str | PromptTemplate:
    if not isinstance(value, str | PromptTemplate):
        raise TypeError(
            f"{what} text must be a str or a PromptTemplate, got {type(value).__name__}"
        )
    return value
