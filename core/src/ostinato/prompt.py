"""What is sent to a model: a :class:`Prompt` of messages plus :class:`ChatOptions`.

Options are immutable. :class:`ToolCallingChatOptions` adds the tools the model may call
and the tool context handed to them (never sent to the model). Combination rules follow
Spring AI: in :meth:`ChatOptions.combine_with` scalars that are set overwrite, stop
sequences concatenate, tool callbacks append and tool contexts merge (the other side wins).

Provider adapters subclass :class:`ToolCallingChatOptions` to add their own fields; the
combination rules work field by field, so subclasses need no code for them.

Its ``tool_callbacks`` take what ``.tools(...)`` takes: ``@tool`` functions and objects
become tool callbacks when the options are made. That conversion is the tools layer's
work, above this module: :mod:`ostinato.tools` hands its converter in when it loads
(:func:`accept_tool_sources`), which it has before any options exist, since importing
``ostinato`` imports it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from ostinato._frozen import EMPTY, FrozenDict, freeze
from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)

if TYPE_CHECKING:
    from ostinato._tool_contract import ToolCallback

__all__ = ["ChatOptions", "Prompt", "ToolCallingChatOptions"]

_M = TypeVar("_M", bound=Message)

# Turns one function, object or provider into tool callbacks (ostinato.tools'
# ``tool_callbacks``, handed in by accept_tool_sources).
_tool_sources: Callable[[object], Sequence[ToolCallback]] | None = None
# The classes seen to be tool callbacks: options are rebuilt every round, and checking
# the classes present (a C-level pass) keeps that cheap.
_CALLBACK_CLASSES: set[type] = set()


def accept_tool_sources(convert: Callable[[object], Sequence[ToolCallback]]) -> None:
    """Let :class:`ToolCallingChatOptions` turn functions and objects into tool callbacks
    with ``convert`` (called by :mod:`ostinato.tools` when it loads)."""
    global _tool_sources
    _tool_sources = convert


def _as_tool_callbacks(items: Iterable[object]) -> tuple[ToolCallback, ...]:
    """``items`` as tool callbacks: callbacks kept, anything else converted in place."""
    found = tuple(items)
    if _CALLBACK_CLASSES.issuperset(map(type, found)):
        return cast("tuple[ToolCallback, ...]", found)  # every class present is a callback's
    callbacks: list[ToolCallback] = []
    for item in found:
        if not isinstance(item, type) and hasattr(item, "tool_definition"):
            _CALLBACK_CLASSES.add(type(item))
            callbacks.append(cast("ToolCallback", item))  # it has the callback's face
        elif _tool_sources is None:
            raise TypeError(
                f"ToolCallingChatOptions.tool_callbacks holds {item!r}, which is no tool "
                "callback; pass tool_callbacks(...) of it (from ostinato.tools)"
            )
        else:
            callbacks.extend(_tool_sources(item))
    return tuple(callbacks)


_MESSAGE_CLASSES = (SystemMessage, UserMessage, AssistantMessage, ToolResponseMessage)
_MESSAGE_CLASS_SET = frozenset(_MESSAGE_CLASSES)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatOptions:
    """Portable model options; ``None`` means "the provider's default".

    Attributes:
        model: the model name (e.g. ``"gpt-4.1-mini"``).
        temperature, max_tokens, top_p, top_k, frequency_penalty, presence_penalty: the
            usual sampling controls.
        stop_sequences: texts that end generation.
        output_schema: a JSON schema (its JSON text) the provider itself must make the
            answer follow (native structured output); set by
            ``entity(..., native=True)``. Only models that declare
            ``native_structured_output = True`` read it.
    """

    model: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    top_k: int | None = None
    stop_sequences: tuple[str, ...] | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    output_schema: str | None = None

    def __post_init__(self) -> None:
        stops: object = self.stop_sequences
        if stops is not None:
            if isinstance(stops, str):
                raise TypeError("stop_sequences must be a sequence of str, not one str")
            object.__setattr__(self, "stop_sequences", tuple(self.stop_sequences or ()))

    def copy(self, **changes: Any) -> Self:
        """A copy with the given fields replaced (fields are replaced, never merged)."""
        return dataclasses.replace(self, **changes)

    def combine_with(self, other: ChatOptions | None) -> Self:
        """These options overlaid with ``other``'s, keeping this class.

        Every field of ``other`` that this class also has and that is set (see
        :meth:`filled_from`) overwrites;
        stop sequences concatenate; tool callbacks append; tool contexts merge with
        ``other``'s keys winning.
        """
        if other is None:
            return self
        changes: dict[str, Any] = {}
        own = {f.name for f in dataclasses.fields(self)}
        for f in dataclasses.fields(other):
            if f.name not in own:
                continue
            value = getattr(other, f.name)
            mine = getattr(self, f.name)
            if f.name == "stop_sequences":
                if value:
                    changes[f.name] = (mine or ()) + tuple(value)
            elif f.name == "tool_callbacks":
                if value:
                    changes[f.name] = tuple(mine) + tuple(value)
            elif f.name == "tool_context":
                if value:
                    changes[f.name] = freeze(mine).merged(value)
            elif not self._unset(value, f):
                changes[f.name] = value
        return dataclasses.replace(self, **changes) if changes else self

    def filled_from(self, defaults: ChatOptions) -> Self:
        """These options with every unset field taken from ``defaults`` (an adapter's
        default options filling a request's).

        Unset is ``None`` or the field's default (for a field without a default, an empty
        sequence or mapping); so an empty mapping given where the default is ``None`` is
        a deliberate value and kept. Unlike :meth:`combine_with` nothing
        concatenates: stop sequences, tools and the tool context set here replace the
        defaults', so filling options already built on the defaults changes nothing.
        Fields ``defaults`` lacks are left as they are.
        """
        theirs_fields = {f.name for f in dataclasses.fields(defaults)}
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in theirs_fields and self._unset(getattr(self, f.name), f):
                theirs = getattr(defaults, f.name)
                if not self._unset(theirs, f):
                    changes[f.name] = theirs
        return dataclasses.replace(self, **changes) if changes else self

    @staticmethod
    def _unset(value: object, f: dataclasses.Field[Any]) -> bool:
        if value is None:
            return True
        if f.default is not dataclasses.MISSING:
            return bool(value == f.default)
        return isinstance(value, tuple | Mapping) and not value


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallingChatOptions(ChatOptions):
    """Options that can carry tools: only a request with these options runs the tool loop.

    Attributes:
        tool_callbacks: the tools the model may call, in order. Given ``@tool`` functions,
            objects with ``@tool`` methods or tool callback providers (what ``.tools(...)``
            takes), they become tool callbacks here.
        tool_context: values handed to tools that ask for a ``ToolContext``; never sent to
            the model.

    Raises:
        ConfigurationError: an item of ``tool_callbacks`` is no tool and has no ``@tool``
            members (the message says what to pass).
    """

    tool_callbacks: tuple[ToolCallback, ...] = ()
    tool_context: Mapping[str, Any] = field(default=EMPTY)

    def __post_init__(self) -> None:
        ChatOptions.__post_init__(self)
        object.__setattr__(self, "tool_callbacks", _as_tool_callbacks(self.tool_callbacks or ()))
        # Every mapping a subclass holds (a provider's extra body, response format...)
        # is frozen too: options are values, shared between requests.
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Mapping) and not isinstance(value, FrozenDict):
                object.__setattr__(self, f.name, freeze(value))

    @classmethod
    def from_options(cls, options: ChatOptions | None) -> Self:
        """``options`` as this class (fields this class lacks are dropped)."""
        if isinstance(options, cls):
            return options
        if options is None:
            return cls()
        return cls().combine_with(options)

    def with_tool_callbacks(self, callbacks: Iterable[ToolCallback]) -> Self:
        """A copy whose tool list is exactly ``callbacks`` (replace)."""
        return dataclasses.replace(self, tool_callbacks=tuple(callbacks))

    def add_tool_callbacks(self, *callbacks: ToolCallback) -> Self:
        """A copy with ``callbacks`` appended to the tool list."""
        return dataclasses.replace(self, tool_callbacks=self.tool_callbacks + callbacks)

    def with_tool_context(self, context: Mapping[str, Any]) -> Self:
        """A copy whose tool context has ``context`` merged in (``context`` wins)."""
        return dataclasses.replace(self, tool_context=freeze(self.tool_context).merged(context))

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The names of the attached tools, in order."""
        return tuple(cb.tool_definition.name for cb in self.tool_callbacks)

    @staticmethod
    def merge_tool_callbacks(
        runtime: Sequence[ToolCallback] | None, default: Sequence[ToolCallback] | None
    ) -> tuple[ToolCallback, ...]:
        """``runtime`` if it is not empty, else ``default`` (override semantics)."""
        if runtime:
            return tuple(runtime)
        return tuple(default or ())

    @staticmethod
    def merge_tool_context(
        runtime: Mapping[str, Any] | None, default: Mapping[str, Any] | None
    ) -> FrozenDict:
        """``default`` overlaid with ``runtime`` (merge semantics; runtime wins)."""
        return freeze(default).merged(runtime or {})

    @staticmethod
    def validate_tool_callbacks(callbacks: Iterable[ToolCallback]) -> None:
        """Raise :class:`~ostinato.errors.ConfigurationError` if two tools share a name."""
        from ostinato.errors import ConfigurationError

        seen: set[str] = set()
        duplicates: list[str] = []
        for cb in callbacks:
            name = cb.tool_definition.name
            if name in seen and name not in duplicates:
                duplicates.append(name)
            seen.add(name)
        if duplicates:
            raise ConfigurationError(
                f"Multiple tools with the same name ({', '.join(duplicates)}) found in "
                "ToolCallingChatOptions; give each tool a unique name (@tool(name=...))"
            )


def _as_messages(messages: str | Message | Iterable[Message]) -> tuple[Message, ...]:
    if isinstance(messages, str):
        return (UserMessage(messages),)
    if isinstance(messages, _MESSAGE_CLASSES):
        return (messages,)
    result = tuple(messages)
    # The tool loop builds prompts of the whole history every round: check the classes
    # present (a C-level pass) and look at each message only when a subclass is among them.
    if not _MESSAGE_CLASS_SET.issuperset(map(type, result)):
        for m in result:
            if not isinstance(m, _MESSAGE_CLASSES):
                raise TypeError(f"a Prompt holds messages, got {type(m).__name__}: {m!r}")
    return result


@dataclass(frozen=True, slots=True, init=False)
class Prompt:
    """The messages and options of one model request.

    ``Prompt("hello")`` is a prompt of one user message; ``Prompt([...], options)`` takes
    any sequence of messages.
    """

    messages: tuple[Message, ...]
    options: ChatOptions | None

    def __init__(
        self,
        messages: str | Message | Iterable[Message] = (),
        options: ChatOptions | None = None,
    ) -> None:
        object.__setattr__(self, "messages", _as_messages(messages))
        object.__setattr__(self, "options", options)

    @property
    def system_message(self) -> SystemMessage:
        """The first system message, or a new empty one if there is none."""
        for m in self.messages:
            if isinstance(m, SystemMessage):
                return m
        return SystemMessage("")

    @property
    def user_message(self) -> UserMessage:
        """The last user message, or a new empty one if there is none."""
        for m in reversed(self.messages):
            if isinstance(m, UserMessage):
                return m
        return UserMessage("")

    @property
    def last_user_or_tool_response_message(self) -> UserMessage | ToolResponseMessage:
        """The last user or tool-response message, or an empty user message."""
        for m in reversed(self.messages):
            if isinstance(m, UserMessage | ToolResponseMessage):
                return m
        return UserMessage("")

    @property
    def user_messages(self) -> tuple[UserMessage, ...]:
        """Every user message, in order."""
        return tuple(m for m in self.messages if isinstance(m, UserMessage))

    def augment_system_message(
        self, change: Callable[[SystemMessage], SystemMessage] | str
    ) -> Prompt:
        """Replace the first system message by ``change(it)``; insert one if there is none.

        ``change`` may also be a string, which becomes the new system text.
        """
        fn = _text_setter(change, SystemMessage)
        messages = list(self.messages)
        for i, m in enumerate(messages):
            if isinstance(m, SystemMessage):
                messages[i] = fn(m)
                return Prompt(messages, self.options)
        return Prompt([fn(SystemMessage("")), *messages], self.options)

    def augment_user_message(self, change: Callable[[UserMessage], UserMessage] | str) -> Prompt:
        """Replace the last user message by ``change(it)``; append one if there is none."""
        fn = _text_setter(change, UserMessage)
        messages = list(self.messages)
        for i in range(len(messages) - 1, -1, -1):
            m = messages[i]
            if isinstance(m, UserMessage):
                messages[i] = fn(m)
                return Prompt(messages, self.options)
        return Prompt([*messages, fn(UserMessage(""))], self.options)

    def copy(
        self,
        *,
        messages: Iterable[Message] | None = None,
        options: ChatOptions | None = None,
    ) -> Prompt:
        """A prompt with the given parts replaced; ``copy(options=None)`` keeps the options.

        Use :meth:`without_options` to drop them. Messages are immutable, so sharing is safe.
        """
        return Prompt(
            self.messages if messages is None else messages,
            self.options if options is None else options,
        )

    def without_options(self) -> Prompt:
        """The same messages with no options."""
        return Prompt(self.messages, None)

    @property
    def contents(self) -> str:
        """Every message's text joined, handy in tests and logs."""
        return "".join(m.text or "" for m in self.messages)

    def __repr__(self) -> str:
        return f"Prompt({list(self.messages)!r}, options={self.options!r})"


def _text_setter(change: Callable[[_M], _M] | str, kind: type[_M]) -> Callable[[_M], _M]:
    if isinstance(change, str):
        text = change

        def set_text(message: _M) -> _M:
            return dataclasses.replace(message, text=text)  # type: ignore[arg-type]  # every kind has text

        return set_text
    return change
