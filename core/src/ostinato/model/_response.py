"""A model's answer: :class:`ChatResponse` of :class:`Generation` objects, with metadata."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Self

from ostinato._frozen import EMPTY, FrozenDict, freeze
from ostinato.messages import AssistantMessage, message_from_dict
from ostinato.model._usage import EMPTY_USAGE, Usage

__all__ = [
    "FINISH_REASON_RAW",
    "ChatGenerationMetadata",
    "ChatResponse",
    "ChatResponseMetadata",
    "FinishReason",
    "Generation",
]


#: Generation metadata key: the finish reason exactly as the provider sent it (an
#: adapter sets it beside the normalised :class:`FinishReason`).
FINISH_REASON_RAW: Final = "finish_reason_raw"


class FinishReason(StrEnum):
    """Why a generation ended: the normalised reasons adapters report, and the reasons the
    tool loop gives the answers it builds itself.

    A ``str`` enum: each member *is* its string (``FinishReason.STOP == "stop"``), so the
    values on the wire, in JSON and in ``finish_reason`` fields are the plain strings.
    Adapters keep the provider's raw value in generation metadata, under
    :data:`FINISH_REASON_RAW`.
    """

    STOP = "stop"
    """The model finished its answer."""
    LENGTH = "length"
    """The answer was cut at the token limit."""
    TOOL_CALLS = "tool_calls"
    """The model asks for tool calls."""
    CONTENT_FILTER = "content_filter"
    """The provider's content filter stopped the answer."""
    RETURN_DIRECT = "returnDirect"
    """The tool loop returned a return-direct tool's result as the answer."""
    TOOL_CALL_LIMIT_EXCEEDED = "toolCallLimitExceeded"
    """The tool loop stopped at a per-tool or per-turn tool-call limit."""
    MAX_ITERATIONS_EXCEEDED = "maxIterationsExceeded"
    """The tool loop stopped at its iteration cap (``max_iterations``)."""
    USAGE_LIMIT_EXCEEDED = "usageLimitExceeded"
    """The tool loop stopped at a usage limit of the turn (:class:`UsageLimits`)."""
    NO_PROGRESS = "noProgress"
    """The tool loop stopped: the model repeated the same tool call without progress."""


@dataclass(frozen=True, slots=True)
class ChatGenerationMetadata:
    """Per-generation facts: the finish reason, content filters, and free key/values."""

    finish_reason: str | None = None
    content_filters: frozenset[str] = frozenset()
    metadata: Mapping[str, Any] = field(default=EMPTY)

    def __post_init__(self) -> None:
        if type(self.content_filters) is not frozenset:
            object.__setattr__(self, "content_filters", frozenset(self.content_filters))
        if type(self.metadata) is not FrozenDict:
            object.__setattr__(self, "metadata", freeze(self.metadata))

    def get(self, key: str, default: Any = None) -> Any:
        """The metadata value under ``key``."""
        return self.metadata.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.metadata

    def __getitem__(self, key: str) -> Any:
        return self.metadata[key]

    @property
    def is_empty(self) -> bool:
        """True when nothing is recorded."""
        return self.finish_reason is None and not self.content_filters and not self.metadata

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "finish_reason": self.finish_reason,
            "content_filters": sorted(self.content_filters),
            "metadata": dict(self.metadata),
        }


EMPTY_GENERATION_METADATA = ChatGenerationMetadata()


@dataclass(frozen=True, slots=True)
class Generation:
    """One candidate answer: an assistant message and its metadata."""

    output: AssistantMessage
    metadata: ChatGenerationMetadata = EMPTY_GENERATION_METADATA

    @property
    def text(self) -> str | None:
        """The output's text."""
        return self.output.text

    @property
    def finish_reason(self) -> str | None:
        """The metadata's finish reason."""
        return self.metadata.finish_reason

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"output": self.output.to_dict(), "metadata": self.metadata.to_dict()}


@dataclass(frozen=True, slots=True)
class ChatResponseMetadata:
    """Response-wide facts: provider id, model, usage, rate limits and free key/values."""

    id: str = ""
    model: str = ""
    usage: Usage = EMPTY_USAGE
    rate_limit: Mapping[str, Any] = field(default=EMPTY)
    prompt_metadata: Mapping[str, Any] = field(default=EMPTY)
    metadata: Mapping[str, Any] = field(default=EMPTY)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate_limit", freeze(self.rate_limit))
        object.__setattr__(self, "prompt_metadata", freeze(self.prompt_metadata))
        object.__setattr__(
            self, "metadata", freeze({k: v for k, v in self.metadata.items() if v is not None})
        )

    def copy(self, **changes: Any) -> Self:
        """A copy with the given fields replaced."""
        if type(self) is ChatResponseMetadata and len(changes) == 1 and "usage" in changes:
            # Every model call sets its usage: the other fields are frozen already.
            new = object.__new__(ChatResponseMetadata)
            setattr_ = object.__setattr__
            setattr_(new, "id", self.id)
            setattr_(new, "model", self.model)
            setattr_(new, "usage", changes["usage"])
            setattr_(new, "rate_limit", self.rate_limit)
            setattr_(new, "prompt_metadata", self.prompt_metadata)
            setattr_(new, "metadata", self.metadata)
            return new  # type: ignore[return-value]  # exactly this class
        return dataclasses.replace(self, **changes)

    def get(self, key: str, default: Any = None) -> Any:
        """The free metadata value under ``key``."""
        return self.metadata.get(key, default)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "id": self.id,
            "model": self.model,
            "usage": self.usage.to_dict(),
            "rate_limit": dict(self.rate_limit),
            "prompt_metadata": _json_form(self.prompt_metadata),
            "metadata": _json_form(self.metadata),
        }


def _json_form(value: Any) -> Any:
    """``value`` as JSON: a value with a ``to_dict()`` (an advisor's documents in the
    free metadata) as its JSON form, mappings and sequences item by item."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {k: _json_form(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_form(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value


EMPTY_RESPONSE_METADATA = ChatResponseMetadata()


@dataclass(frozen=True, slots=True, init=False)
class ChatResponse:
    """A model's answer: its generations (usually one) and response metadata."""

    generations: tuple[Generation, ...]
    metadata: ChatResponseMetadata

    def __init__(
        self,
        generations: Iterable[Generation] = (),
        metadata: ChatResponseMetadata = EMPTY_RESPONSE_METADATA,
    ) -> None:
        object.__setattr__(self, "generations", tuple(generations))
        object.__setattr__(self, "metadata", metadata)

    @property
    def result(self) -> Generation | None:
        """The first generation, or ``None`` when there is none."""
        return self.generations[0] if self.generations else None

    @property
    def results(self) -> tuple[Generation, ...]:
        """Every generation."""
        return self.generations

    @property
    def text(self) -> str | None:
        """The first generation's text (``None`` without generations)."""
        first = self.result
        return first.output.text if first is not None else None

    @property
    def usage(self) -> Usage:
        """The response's usage."""
        return self.metadata.usage

    def has_tool_calls(self) -> bool:
        """True when any generation asks for a tool call."""
        return any(g.output.has_tool_calls for g in self.generations)

    def has_finish_reasons(self, *reasons: str) -> bool:
        """True when any generation's finish reason is one of ``reasons`` (ignoring case)."""
        wanted = {r.lower() for r in reasons}
        return any(
            g.metadata.finish_reason is not None and g.metadata.finish_reason.lower() in wanted
            for g in self.generations
        )

    def copy(
        self,
        *,
        generations: Iterable[Generation] | None = None,
        metadata: ChatResponseMetadata | None = None,
    ) -> ChatResponse:
        """A copy with generations and/or metadata replaced."""
        return ChatResponse(
            self.generations if generations is None else generations,
            self.metadata if metadata is None else metadata,
        )

    def with_usage(self, usage: Usage) -> ChatResponse:
        """A copy whose metadata carries ``usage``."""
        return ChatResponse(self.generations, self.metadata.copy(usage=usage))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (what ``ostinato chat --json`` prints)."""
        return {
            "generations": [g.to_dict() for g in self.generations],
            "metadata": self.metadata.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChatResponse:
        """Rebuild a response from :meth:`to_dict`'s output (native usage is not kept)."""
        gens = []
        for g in data.get("generations") or ():
            meta = g.get("metadata") or {}
            gens.append(
                Generation(
                    _assistant_from_dict(g["output"]),
                    ChatGenerationMetadata(
                        meta.get("finish_reason"),
                        frozenset(meta.get("content_filters") or ()),
                        meta.get("metadata") or EMPTY,
                    ),
                )
            )
        m = data.get("metadata") or {}
        u = m.get("usage") or {}
        return cls(
            gens,
            ChatResponseMetadata(
                id=m.get("id", ""),
                model=m.get("model", ""),
                usage=Usage(**u),
                rate_limit=m.get("rate_limit") or EMPTY,
                prompt_metadata=m.get("prompt_metadata") or EMPTY,
                metadata=m.get("metadata") or EMPTY,
            ),
        )

    def __repr__(self) -> str:
        return f"ChatResponse({list(self.generations)!r}, usage={self.metadata.usage!r})"


def _assistant_from_dict(data: Mapping[str, Any]) -> AssistantMessage:
    message = message_from_dict({"type": "assistant", **data})
    if not isinstance(message, AssistantMessage):
        raise ValueError(
            f"a generation's output must be an assistant message, got type "
            f"{data.get('type')!r} (the 'type' key of the output's JSON form)"
        )
    return message
