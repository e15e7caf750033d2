"""The messages of a conversation: system, user, assistant and tool responses.

Messages are immutable values: equal when their type, text, tool calls, responses, media
and metadata are equal (metadata is part of identity, which memory de-duplication relies
on). Each has one JSON form, :meth:`Message.to_dict` / :meth:`Message.from_dict`, used by
memory repositories, the CLI and tests; it round-trips every field.

This module knows nothing about models, prompts or tools beyond their wire shapes.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias

from ostinato._frozen import EMPTY, FrozenDict, freeze

__all__ = [
    "REASONING",
    "REASONING_SIGNATURE",
    "AssistantMessage",
    "Media",
    "Message",
    "MessageType",
    "SystemMessage",
    "ToolCall",
    "ToolResponse",
    "ToolResponseMessage",
    "UserMessage",
    "message_from_dict",
]

#: Metadata key holding an assistant message's reasoning ("thinking") text.
REASONING = "reasoning"
#: Metadata key holding a provider signature needed to send reasoning back (Anthropic).
REASONING_SIGNATURE = "reasoning_signature"


class MessageType(enum.StrEnum):
    """Who speaks a message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


def _short(text: str | None, limit: int = 60) -> str:
    if text is None:
        return "None"
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


@dataclass(frozen=True, slots=True)
class Media:
    """An attachment of a user (or assistant) message: inline bytes or a URL.

    Attributes:
        mime_type: e.g. ``"image/png"``.
        data: the content, for inline media.
        url: where the content lives, for referenced media.
        name: an optional file name.
    """

    mime_type: str
    data: bytes | None = None
    url: str | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if (self.data is None) == (self.url is None):
            raise ValueError(
                f"Media({self.mime_type!r}) needs exactly one of data= or url=; "
                f"got {'both' if self.data is not None else 'neither'}"
            )

    def __repr__(self) -> str:
        where = f"url={self.url!r}" if self.url is not None else f"{len(self.data or b'')} bytes"
        return f"Media({self.mime_type!r}, {where})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (inline data base64-encoded)."""
        import base64  # on first use: ``import ostinato`` does not need it

        return {
            "mime_type": self.mime_type,
            "data": base64.b64encode(self.data).decode("ascii") if self.data is not None else None,
            "url": self.url,
            "name": self.name,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Media:
        """Rebuild a :class:`Media` from :meth:`to_dict`'s output."""
        import base64

        raw = data.get("data")
        return cls(
            mime_type=data["mime_type"],
            data=base64.b64decode(raw) if raw is not None else None,
            url=data.get("url"),
            name=data.get("name"),
        )


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool invocation the model asked for.

    Attributes:
        id: the provider's call id, echoed back in the matching :class:`ToolResponse`.
        name: the tool's name.
        arguments: the raw JSON text of the arguments, as the model wrote it (may be empty
            or malformed; the tool calling manager deals with that).
        type: the call type; ``"function"`` for every provider today.
        index: only on streamed fragments: which call of the message this fragment belongs
            to. Aggregated and non-streamed calls have ``None``.
    """

    id: str
    name: str
    arguments: str
    type: str = "function"
    index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        data: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "name": self.name,
            "arguments": self.arguments,
        }
        if self.index is not None:
            data["index"] = self.index
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall:
        """Rebuild a :class:`ToolCall` from :meth:`to_dict`'s output."""
        return cls(
            id=data["id"],
            name=data["name"],
            arguments=data.get("arguments") or "",
            type=data.get("type", "function"),
            index=data.get("index"),
        )


@dataclass(frozen=True, slots=True)
class ToolResponse:
    """The result of one tool call, as text for the model.

    Attributes:
        id: the :class:`ToolCall` id it answers.
        name: the tool name as the model asked for it.
        response_data: the result text.
    """

    id: str
    name: str
    response_data: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"id": self.id, "name": self.name, "response_data": self.response_data}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolResponse:
        """Rebuild a :class:`ToolResponse` from :meth:`to_dict`'s output."""
        return cls(id=data["id"], name=data["name"], response_data=data["response_data"])


class _MessageBase:
    """Shared behaviour of the four message classes (not a public base).

    Messages can be weakly referenced, so adapters may cache what they derive from one
    (its wire payload) without keeping it alive.
    """

    __slots__ = ()
    message_type: ClassVar[MessageType]

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Message:
        """Rebuild any message from its JSON form, dispatching on ``data["type"]``."""
        kind = data.get("type")
        cls = _BY_TYPE.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise ValueError(
                f"unknown message type {kind!r}; expected one of {sorted(_BY_TYPE)} "
                "(the 'type' key of a message's JSON form)"
            )
        message: Message = cls._from_dict(data)
        return message


def _media_tuple(media: Iterable[Media] | None) -> tuple[Media, ...]:
    return tuple(media) if media else ()


@dataclass(frozen=True, slots=True, repr=False, weakref_slot=True)
class SystemMessage(_MessageBase):
    """Instructions to the model."""

    text: str
    metadata: Mapping[str, Any] = field(default=EMPTY)
    message_type: ClassVar[MessageType] = MessageType.SYSTEM

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"SystemMessage text must be a str, got {type(self.text).__name__}")
        object.__setattr__(self, "metadata", freeze(self.metadata))

    def __repr__(self) -> str:
        meta = f", metadata={self.metadata!r}" if self.metadata else ""
        return f"SystemMessage({_short(self.text)}{meta})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"type": "system", "text": self.text, "metadata": dict(self.metadata)}

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any]) -> SystemMessage:
        return cls(data["text"], data.get("metadata") or EMPTY)


@dataclass(frozen=True, slots=True, repr=False, weakref_slot=True)
class UserMessage(_MessageBase):
    """What the user said, with optional media attachments."""

    text: str
    media: tuple[Media, ...] = ()
    metadata: Mapping[str, Any] = field(default=EMPTY)
    message_type: ClassVar[MessageType] = MessageType.USER

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"UserMessage text must be a str, got {type(self.text).__name__}")
        object.__setattr__(self, "media", _media_tuple(self.media))
        object.__setattr__(self, "metadata", freeze(self.metadata))

    def __repr__(self) -> str:
        extra = f", media={list(self.media)!r}" if self.media else ""
        extra += f", metadata={self.metadata!r}" if self.metadata else ""
        return f"UserMessage({_short(self.text)}{extra})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "type": "user",
            "text": self.text,
            "media": [m.to_dict() for m in self.media],
            "metadata": dict(self.metadata),
        }

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any]) -> UserMessage:
        return cls(
            data["text"],
            tuple(Media.from_dict(m) for m in data.get("media") or ()),
            data.get("metadata") or EMPTY,
        )


@dataclass(frozen=True, slots=True, repr=False, weakref_slot=True)
class AssistantMessage(_MessageBase):
    """What the model said: text (possibly ``None``), tool calls, and metadata.

    Reasoning text is kept in ``metadata["reasoning"]`` (see :attr:`reasoning`), never in
    :attr:`text`.
    """

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    metadata: Mapping[str, Any] = field(default=EMPTY)
    media: tuple[Media, ...] = ()
    message_type: ClassVar[MessageType] = MessageType.ASSISTANT

    def __post_init__(self) -> None:
        text = self.text
        if text is not None and type(text) is not str and not isinstance(text, str):
            raise TypeError(
                f"AssistantMessage text must be a str or None, got {type(self.text).__name__}"
            )
        # A stream makes one message per chunk: what is already a tuple (or frozen) stays.
        if type(self.tool_calls) is not tuple:
            object.__setattr__(
                self, "tool_calls", tuple(self.tool_calls) if self.tool_calls else ()
            )
        if type(self.media) is not tuple:
            object.__setattr__(self, "media", _media_tuple(self.media))
        if type(self.metadata) is not FrozenDict:
            object.__setattr__(self, "metadata", freeze(self.metadata))

    @property
    def has_tool_calls(self) -> bool:
        """Whether the model asked for at least one tool call."""
        return bool(self.tool_calls)

    @property
    def reasoning(self) -> str | None:
        """The reasoning ("thinking") text, if the provider returned one."""
        value = self.metadata.get(REASONING)
        return value if isinstance(value, str) else None

    def __repr__(self) -> str:
        extra = f", tool_calls={list(self.tool_calls)!r}" if self.tool_calls else ""
        extra += f", metadata={self.metadata!r}" if self.metadata else ""
        extra += f", media={list(self.media)!r}" if self.media else ""
        return f"AssistantMessage({_short(self.text)}{extra})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "type": "assistant",
            "text": self.text,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "media": [m.to_dict() for m in self.media],
            "metadata": dict(self.metadata),
        }

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any]) -> AssistantMessage:
        return cls(
            data.get("text"),
            tuple(ToolCall.from_dict(c) for c in data.get("tool_calls") or ()),
            data.get("metadata") or EMPTY,
            tuple(Media.from_dict(m) for m in data.get("media") or ()),
        )


@dataclass(frozen=True, slots=True, repr=False, weakref_slot=True)
class ToolResponseMessage(_MessageBase):
    """Every tool response of one batch, in the order the calls were made. Text is ``""``."""

    responses: tuple[ToolResponse, ...] = ()
    metadata: Mapping[str, Any] = field(default=EMPTY)
    message_type: ClassVar[MessageType] = MessageType.TOOL

    def __post_init__(self) -> None:
        object.__setattr__(self, "responses", tuple(self.responses))
        object.__setattr__(self, "metadata", freeze(self.metadata))

    @property
    def text(self) -> str:
        """Always ``""``: the content lives in :attr:`responses`."""
        return ""

    def __repr__(self) -> str:
        meta = f", metadata={self.metadata!r}" if self.metadata else ""
        return f"ToolResponseMessage({list(self.responses)!r}{meta})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "type": "tool",
            "responses": [r.to_dict() for r in self.responses],
            "metadata": dict(self.metadata),
        }

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any]) -> ToolResponseMessage:
        return cls(
            tuple(ToolResponse.from_dict(r) for r in data.get("responses") or ()),
            data.get("metadata") or EMPTY,
        )


Message: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolResponseMessage
"""Any message of a conversation."""

_BY_TYPE: dict[str, Any] = {
    "system": SystemMessage,
    "user": UserMessage,
    "assistant": AssistantMessage,
    "tool": ToolResponseMessage,
}


def message_from_dict(data: Mapping[str, Any]) -> Message:
    """Rebuild any message from its JSON form (``to_dict``'s output)."""
    return _MessageBase.from_dict(data)
